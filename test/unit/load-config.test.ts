import { EXTERNAL_AGGREGATOR_ENV_NAMES } from '../../shared/routing/aggregators/external-aggregator-config';
import path from 'node:path';
import {
  checkEnvironment,
  ConfigError,
  ENV_DEFAULTS,
  ENV_OF_FIELD,
  loadConfig,
} from '../../shared/config/load-config';

const CHAINS_FILE = path.resolve(__dirname, '../../config/chains.json');

function problem(env: Record<string, string>): string {
  try {
    loadConfig({ CHAINS_FILE, ...env });
  } catch (err) {
    expect(err).toBeInstanceOf(ConfigError);
    return (err as Error).message;
  }
  throw new Error('the configuration was accepted');
}

describe('configuration errors', () => {
  it('name the variable and the value it was given, in one line', () => {
    expect(problem({ PORT: 'abc' })).toBe('Invalid configuration: PORT="abc" must be integer');
    expect(problem({ KEEPER_LEASE_MS: '5', STALE_AFTER_SECONDS: '0' })).toBe(
      'Invalid configuration: STALE_AFTER_SECONDS="0" must be >= 1; KEEPER_LEASE_MS="5" must be >= 1000',
    );
    expect(problem({ LOG_LEVEL: 'loud' })).toBe(
      'Invalid configuration: LOG_LEVEL="loud" must be equal to one of the allowed values',
    );
  });

  it('never repeat a secret or a URL that may carry credentials', () => {
    const secrets = {
      MASTER_KEY: 'not-a-key-s3cret',
      MASTER_KEY_PREVIOUS: 'old-key-s3cret',
      EXECUTOR_PRIVATE_KEYS: `0x${'ab'.repeat(32)},0xs3cret`,
      DATABASE_URL: 'postgres://user:s3cret@db/x',
      REDIS_URL: 'http://user:s3cret@cache',
    };
    const message = problem(secrets);
    expect(message).not.toMatch(/s3cret/);
    for (const name of Object.keys(secrets)) expect(message).toContain(`${name} (value not shown)`);
  });

  it('know the variable of every field', () => {
    // The external aggregators' variables are checked by their own parser, before the schema sees a list.
    const parsedApart = EXTERNAL_AGGREGATOR_ENV_NAMES.filter((name) => name !== 'EXTERNAL_QUOTE_BUDGET_MS');
    expect(new Set([...Object.values(ENV_OF_FIELD), ...parsedApart])).toEqual(
      new Set(Object.keys(ENV_DEFAULTS)),
    );
  });

  it('name the aggregator variable at fault, never its key', () => {
    expect(() =>
      checkEnvironment({
        CHAINS_FILE: '/nonexistent.json',
        AGGREGATOR_ZEROX_URL: 'https://api.0x.org',
        AGGREGATOR_ZEROX_API_KEY: 'secret-zeroex-key',
      }),
    ).toThrow(/AGGREGATOR_ZEROX_CHAINS/);
    try {
      checkEnvironment({
        CHAINS_FILE: '/nonexistent.json',
        AGGREGATOR_ZEROX_URL: 'https://api.0x.org',
        AGGREGATOR_ZEROX_API_KEY: 'secret-zeroex-key',
      });
    } catch (err) {
      expect(String(err)).not.toContain('secret-zeroex-key');
    }
    expect(() =>
      checkEnvironment({ CHAINS_FILE: '/nonexistent.json', EXTERNAL_QUOTE_BUDGET_MS: '5' }),
    ).toThrow(/EXTERNAL_QUOTE_BUDGET_MS/);
  });

  it('are found before the chains exist', () => {
    expect(() => checkEnvironment({ PORT: 'abc', CHAINS_FILE: '/nonexistent.json' })).toThrow(
      'Invalid configuration: PORT="abc" must be integer',
    );
    expect(() => checkEnvironment({ CHAINS_FILE: '/nonexistent.json' })).not.toThrow();
  });
});

describe("the relayer's valuation and caps", () => {
  const chain = {
    chainId: 1,
    name: 'Ethereum',
    rpcUrls: [],
    nativeSymbol: 'ETH',
    nativeDecimals: 18,
    wrappedNative: `0x${'1'.repeat(40)}`,
    crossChainSource: true,
  };

  it('default to a 200 bps bound, 250,000 USD a fill, 1,000,000 USD a token an hour and no floor', () => {
    expect(loadConfig({ CHAINS_FILE }).crossChain).toMatchObject({
      relayerMaxPriceDeviationBps: 200,
      relayerMaxFillUsd: 250_000,
      relayerMaxHourlyUsd: 1_000_000,
      relayerInventoryFloorUsd: 0,
    });
  });

  it('are named when out of range', () => {
    expect(problem({ RELAYER_MAX_FILL_USD: '0', RELAYER_MAX_PRICE_DEVIATION_BPS: '0' })).toBe(
      'Invalid configuration: RELAYER_MAX_PRICE_DEVIATION_BPS="0" must be >= 1; RELAYER_MAX_FILL_USD="0" must be > 0',
    );
    expect(problem({ RELAYER_INVENTORY_FLOOR_USD: '-1' })).toBe(
      'Invalid configuration: RELAYER_INVENTORY_FLOOR_USD="-1" must be >= 0',
    );
  });

  it("take a chain entry's own inventory floor", () => {
    const config = loadConfig({ CHAINS_FILE }, { chains: [{ ...chain, relayerInventoryFloorUsd: 5_000 }] });
    expect(config.chains[0]!.relayerInventoryFloorUsd).toBe(5_000);
    expect(() =>
      loadConfig({ CHAINS_FILE }, { chains: [{ ...chain, relayerInventoryFloorUsd: -1 }] }),
    ).toThrow('Invalid configuration: CHAINS_FILE chains[0].relayerInventoryFloorUsd must be >= 0');
  });
});
