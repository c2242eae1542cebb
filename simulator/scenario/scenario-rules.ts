import { marketOfOrder, splitPair } from './market-lookup';
import type { DcaGroupSpec, LimitOrderGroupSpec, Scenario } from './scenario-types';

/** The API refuses a DCA frequency above 365 days. */
const MAX_FREQUENCY_SECONDS = 31_536_000;

/** The rules a JSON schema cannot state: they relate fields to each other. Each problem is "field: problem". */
export function scenarioProblems(s: Scenario): string[] {
  return [
    ...chainProblems(s),
    ...marketProblems(s),
    ...s.limitOrders.flatMap((group, i) => [
      ...orderGroupProblems(s, group, `limitOrders[${i}]`),
      ...limitGroupProblems(group, `limitOrders[${i}]`),
    ]),
    ...s.dca.flatMap((group, i) => [
      ...orderGroupProblems(s, group, `dca[${i}]`),
      ...dcaGroupProblems(s, group, `dca[${i}]`),
    ]),
  ];
}

function chainProblems(s: Scenario): string[] {
  return s.chains.flatMap((chainId, i) =>
    s.chains.indexOf(chainId) < i ? [`chains[${i}]: chain ${chainId} is listed twice`] : [],
  );
}

function marketProblems(s: Scenario): string[] {
  const problems: string[] = [];
  s.markets.forEach((market, i) => {
    const at = `markets[${i}]`;
    if (!s.chains.includes(market.chainId)) {
      problems.push(`${at}.chainId: chain ${market.chainId} is not in chains`);
    }
    const { base, quote } = splitPair(market.pair);
    if (base === quote) problems.push(`${at}.pair: base and quote must differ`);
    // Two markets on the same tokens (either way round) would give an order two prices to follow.
    const earlier = s.markets.findIndex((other, j) => {
      if (j >= i || other.chainId !== market.chainId) return false;
      const o = splitPair(other.pair);
      return (o.base === base && o.quote === quote) || (o.base === quote && o.quote === base);
    });
    if (earlier >= 0) {
      problems.push(
        `${at}.pair: chain ${market.chainId} already has a market of ${base} and ${quote} (markets[${earlier}])`,
      );
    }
    if (market.path.kind === 'points') problems.push(...pointProblems(market.path.points, s.blocks, at));
  });
  return problems;
}

function pointProblems(points: Array<[number, number]>, blocks: number, at: string): string[] {
  const problems: string[] = [];
  points.forEach(([block], k) => {
    const field = `${at}.path.points[${k}][0]`;
    const previous = k > 0 ? points[k - 1]![0] : -1;
    if (block > blocks) problems.push(`${field}: block ${block} is after the run's last block (${blocks})`);
    else if (block <= previous)
      problems.push(`${field}: blocks must be ascending (${block} comes after ${previous})`);
  });
  return problems;
}

/** Chain, tokens and placement block: the same rules for limit-order and DCA groups. */
function orderGroupProblems(s: Scenario, group: LimitOrderGroupSpec | DcaGroupSpec, at: string): string[] {
  const problems: string[] = [];
  if (!s.chains.includes(group.chainId)) {
    problems.push(`${at}.chainId: chain ${group.chainId} is not in chains`);
  } else if (group.sell === group.buy) {
    problems.push(`${at}.buy: must differ from sell`);
  } else {
    const tokens = new Set(
      s.markets.filter((m) => m.chainId === group.chainId).flatMap((m) => Object.values(splitPair(m.pair))),
    );
    const unknown = (['sell', 'buy'] as const).filter((side) => !tokens.has(group[side]));
    for (const side of unknown) {
      const token = JSON.stringify(group[side]);
      problems.push(`${at}.${side}: ${token} is not the base or quote of a market on chain ${group.chainId}`);
    }
    if (unknown.length === 0 && !marketOfOrder(s.markets, group)) {
      const pair = `${JSON.stringify(group.sell)} against ${JSON.stringify(group.buy)}`;
      problems.push(`${at}: no market on chain ${group.chainId} trades ${pair}`);
    }
  }
  if (group.atBlock > s.blocks) {
    problems.push(`${at}.atBlock: block ${group.atBlock} is after the run's last block (${s.blocks})`);
  }
  return problems;
}

function limitGroupProblems(group: LimitOrderGroupSpec, at: string): string[] {
  return group.makers > group.count ? [`${at}.makers: must be at most count (${group.count})`] : [];
}

function dcaGroupProblems(s: Scenario, group: DcaGroupSpec, at: string): string[] {
  const problems: string[] = [];
  if (group.everyBlocks * s.blockTimeSeconds > MAX_FREQUENCY_SECONDS) {
    problems.push(
      `${at}.everyBlocks: ${group.everyBlocks} blocks of ${s.blockTimeSeconds} s exceed the API's longest DCA ` +
        `frequency (${MAX_FREQUENCY_SECONDS} s)`,
    );
  }
  if (group.minPrice !== undefined && group.maxPrice !== undefined && group.maxPrice < group.minPrice) {
    problems.push(`${at}.maxPrice: must be at least minPrice (${group.minPrice})`);
  }
  return problems;
}
