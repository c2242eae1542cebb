/**
 * Time per in-memory quote (findRoutes + bestSplit) on a synthetic ~200-pool set with 8 connectors. Not a
 * test: prints figures for the routing benchmark to come. Run: npx tsx bench/routing-quote-timing.ts
 */
import { findRoutes } from '../shared/routing/pathfinding/find-routes';
import { bestSplit } from '../shared/routing/splitting/best-split';
import { randomPoolSet, seededRandom } from '../test/helpers/routing-pools';

const E18 = 10n ** 18n;
const { pools, connectors, tokens } = randomPoolSet(7, 200);
const all = [...connectors, ...tokens];
const rand = seededRandom(99);
const pairs = Array.from({ length: 200 }, () => {
  const a = all[rand(all.length)]!;
  let b = all[rand(all.length)]!;
  while (b === a) b = all[rand(all.length)]!;
  return { a, b, amount: BigInt(1 + rand(200)) * E18 };
});

function quote(a: string, b: string, amount: bigint) {
  const routes = findRoutes(pools, a, b, { connectors, estimateAmountIn: amount });
  return { routes: routes.length, result: bestSplit(routes, amount, { gasPriceInTokenOut: 10n ** 9n }) };
}

for (const { a, b, amount } of pairs.slice(0, 20)) quote(a, b, amount); // warm-up (JIT)

const times: number[] = [];
let routed = 0;
let split = 0;
let candidates = 0;
for (const { a, b, amount } of pairs) {
  const start = process.hrtime.bigint();
  const { routes, result } = quote(a, b, amount);
  times.push(Number(process.hrtime.bigint() - start) / 1e6);
  candidates += routes;
  if (result) routed++;
  if (result && result.splits.length > 1) split++;
}
times.sort((x, y) => x - y);
const pct = (p: number) =>
  times[Math.min(times.length - 1, Math.floor((p / 100) * times.length))]!.toFixed(2);
const mean = times.reduce((s, t) => s + t, 0) / times.length;
console.log(
  `${pools.length} pools, ${connectors.length} connectors, ${pairs.length} quotes (${routed} routed, ${split} split, ` +
    `${(candidates / pairs.length).toFixed(1)} candidate routes avg)`,
);
console.log(
  `per quote: mean ${mean.toFixed(2)} ms, p50 ${pct(50)} ms, p99 ${pct(99)} ms, max ${pct(100)} ms`,
);
