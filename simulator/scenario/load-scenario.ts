import { readFileSync } from 'node:fs';
import path from 'node:path';
import { splitPair } from './market-lookup';
import { pathPrices } from './price-path';
import { ScenarioError } from './scenario-error';
import { MAX_SEED, parseScenario } from './scenario-schema';
import type { ResolvedScenario } from './scenario-types';

/**
 * Reads, validates and resolves a scenario file: defaults filled in, `seed` (the command line's --seed) in place of
 * the file's, and every market's price at each block 0..blocks. Every failure is a ScenarioError naming `file` as
 * given.
 */
export function loadScenario(file: string, options: { seed?: number } = {}): ResolvedScenario {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (err) {
    throw new ScenarioError(`${file}: cannot be read (${(err as Error).message})`);
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (err) {
    throw new ScenarioError(`${file}: is not valid JSON (${(err as Error).message})`);
  }
  const scenario = parseScenario(json, file);
  const { seed } = options;
  if (seed !== undefined && !(Number.isInteger(seed) && seed >= 0 && seed <= MAX_SEED)) {
    throw new ScenarioError(`--seed must be an integer from 0 to ${MAX_SEED}, not ${seed}`);
  }
  if (seed !== undefined) scenario.seed = seed;
  const baseDir = path.dirname(path.resolve(file));
  const markets = scenario.markets.map((market, i) => {
    let prices: number[];
    try {
      prices = pathPrices(market.path, {
        blocks: scenario.blocks,
        blockTimeSeconds: scenario.blockTimeSeconds,
        seed: scenario.seed,
        baseDir,
      });
    } catch (err) {
      if (!(err instanceof ScenarioError)) throw err;
      throw new ScenarioError(`${file}: markets[${i}].path: ${err.message}`);
    }
    return { ...market, ...splitPair(market.pair), prices };
  });
  return { ...scenario, file: path.resolve(file), markets };
}
