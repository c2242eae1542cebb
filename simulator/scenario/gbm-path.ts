import { uniformFloat64 } from 'pure-rand/distribution/uniformFloat64';
import { xoroshiro128plus } from 'pure-rand/generator/xoroshiro128plus';
import { ScenarioError } from './scenario-error';
import type { GbmPath } from './scenario-types';

const SECONDS_PER_YEAR = 31_536_000;

/**
 * Geometric Brownian motion sampled once per block: the log price moves by (drift − vol²/2)·dt + vol·√dt·Z with
 * dt in years, so `drift` and `volatility` read as annual figures whatever the block time. A seed gives the same
 * path on every machine: the generator is integer arithmetic and V8 computes Math.log/exp/sin/cos with its own
 * portable library rather than the platform's.
 */
export function gbmPrices(spec: GbmPath, blocks: number, blockTimeSeconds: number, seed: number): number[] {
  const rng = xoroshiro128plus(seed);
  const dt = blockTimeSeconds / SECONDS_PER_YEAR;
  const driftStep = (spec.drift - (spec.volatility * spec.volatility) / 2) * dt;
  const shockScale = spec.volatility * Math.sqrt(dt);
  const normal = normalDraws(() => uniformFloat64(rng));
  const prices = new Array<number>(blocks + 1);
  prices[0] = spec.start;
  let logPrice = Math.log(spec.start);
  for (let b = 1; b <= blocks; b++) {
    logPrice += driftStep + shockScale * normal();
    const price = Math.exp(logPrice);
    if (!(price > 0 && Number.isFinite(price))) {
      throw new ScenarioError(`gbm price reaches ${price} at block ${b}; lower the drift or the volatility`);
    }
    prices[b] = price;
  }
  return prices;
}

/** Standard normal draws by Box–Muller, both values of each pair used in turn. */
function normalDraws(uniform: () => number): () => number {
  let spare: number | null = null;
  return () => {
    if (spare !== null) {
      const z = spare;
      spare = null;
      return z;
    }
    // 1 − u lies in (0, 1]: the logarithm never sees 0.
    const radius = Math.sqrt(-2 * Math.log(1 - uniform()));
    const angle = 2 * Math.PI * uniform();
    spare = radius * Math.sin(angle);
    return radius * Math.cos(angle);
  };
}
