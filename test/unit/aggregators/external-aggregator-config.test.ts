/** The operator's aggregator settings read from environment-like strings, and the clients built from them. */
import { createExternalAggregators } from '../../../shared/routing/aggregators/create-external-aggregators';
import {
  EXTERNAL_AGGREGATOR_ENV_NAMES,
  parseExternalAggregatorsConfig,
} from '../../../shared/routing/aggregators/external-aggregator-config';

const ALL = {
  AGGREGATOR_ZEROX_URL: 'https://api.0x.org',
  AGGREGATOR_ZEROX_API_KEY: 'zx-secret-1',
  AGGREGATOR_ZEROX_CHAINS: '1, 10,8453',
  AGGREGATOR_ONEINCH_URL: 'https://api.1inch.dev',
  AGGREGATOR_ONEINCH_API_KEY: 'oi-secret-2',
  AGGREGATOR_ONEINCH_CHAINS: '1,42161',
  AGGREGATOR_PARASWAP_URL: 'https://api.paraswap.io',
  AGGREGATOR_PARASWAP_CHAINS: '1',
  AGGREGATOR_ODOS_URL: 'https://api.odos.xyz/',
  AGGREGATOR_ODOS_CHAINS: '8453,8453',
  AGGREGATOR_KYBERSWAP_URL: 'https://aggregator-api.kyberswap.com',
  AGGREGATOR_KYBERSWAP_API_KEY: 'tas',
  AGGREGATOR_KYBERSWAP_CHAINS: '1,59144',
  EXTERNAL_QUOTE_BUDGET_MS: '250',
};

describe('parseExternalAggregatorsConfig', () => {
  it('reads every aggregator whose URL is set, with its key and chains, and the budget', () => {
    expect(parseExternalAggregatorsConfig(ALL)).toEqual({
      aggregators: [
        { id: '0x', apiUrl: 'https://api.0x.org', apiKey: 'zx-secret-1', chainIds: [1, 10, 8453] },
        { id: '1inch', apiUrl: 'https://api.1inch.dev', apiKey: 'oi-secret-2', chainIds: [1, 42161] },
        { id: 'paraswap', apiUrl: 'https://api.paraswap.io', apiKey: '', chainIds: [1] },
        { id: 'odos', apiUrl: 'https://api.odos.xyz/', apiKey: '', chainIds: [8453] },
        {
          id: 'kyberswap',
          apiUrl: 'https://aggregator-api.kyberswap.com',
          apiKey: 'tas',
          chainIds: [1, 59144],
        },
      ],
      quoteBudgetMs: 250,
    });
  });

  it('enables nothing by default and waits 400 ms', () => {
    expect(parseExternalAggregatorsConfig({})).toEqual({ aggregators: [], quoteBudgetMs: 400 });
    // A key or chains without a URL enable nothing.
    expect(
      parseExternalAggregatorsConfig({
        AGGREGATOR_ODOS_CHAINS: '1',
        AGGREGATOR_ODOS_API_KEY: 'k',
        AGGREGATOR_ZEROX_URL: ' ',
      }),
    ).toEqual({ aggregators: [], quoteBudgetMs: 400 });
  });

  it('names the variable at fault', () => {
    const parse = (changes: Record<string, string>) => () =>
      parseExternalAggregatorsConfig({ ...ALL, ...changes });
    expect(parse({ AGGREGATOR_ODOS_URL: 'api.odos.xyz' })).toThrow(
      /^AGGREGATOR_ODOS_URL must be an http\(s\) URL/,
    );
    expect(parse({ AGGREGATOR_ZEROX_CHAINS: '1,ten' })).toThrow(
      'AGGREGATOR_ZEROX_CHAINS must be a comma-separated list of chain ids, got "ten"',
    );
    expect(parse({ AGGREGATOR_ONEINCH_CHAINS: '1,-5' })).toThrow(/AGGREGATOR_ONEINCH_CHAINS/);
    expect(parse({ AGGREGATOR_PARASWAP_CHAINS: '' })).toThrow(
      /^AGGREGATOR_PARASWAP_CHAINS must list the chain ids/,
    );
    expect(parse({ AGGREGATOR_ONEINCH_API_KEY: '' })).toThrow(/^AGGREGATOR_ONEINCH_API_KEY must be set/);
    expect(parse({ EXTERNAL_QUOTE_BUDGET_MS: '20' })).toThrow(
      /^EXTERNAL_QUOTE_BUDGET_MS must be an integer from 50 to 10000/,
    );
    expect(parse({ EXTERNAL_QUOTE_BUDGET_MS: '1.5' })).toThrow(/EXTERNAL_QUOTE_BUDGET_MS/);
  });

  it('never repeats an API key in a message', () => {
    let message = '';
    try {
      parseExternalAggregatorsConfig({ ...ALL, AGGREGATOR_ZEROX_CHAINS: 'x' });
    } catch (error) {
      message = (error as Error).message;
    }
    expect(message).not.toBe('');
    expect(message).not.toContain('zx-secret-1');
  });

  it('lists every variable it reads', () => {
    expect(EXTERNAL_AGGREGATOR_ENV_NAMES).toHaveLength(16);
    expect(Object.keys(ALL).every((name) => EXTERNAL_AGGREGATOR_ENV_NAMES.includes(name))).toBe(true);
  });
});

describe('createExternalAggregators', () => {
  it('builds one client per enabled aggregator, serving its chains', () => {
    const aggregators = createExternalAggregators(parseExternalAggregatorsConfig(ALL), {
      decimalsOf: () => undefined,
    });
    expect(aggregators.map(({ id, name }) => [id, name])).toEqual([
      ['0x', '0x'],
      ['1inch', '1inch'],
      ['paraswap', 'ParaSwap'],
      ['odos', 'Odos'],
      ['kyberswap', 'KyberSwap'],
    ]);
    expect(aggregators.map((aggregator) => aggregator.supports(8453))).toEqual([
      true,
      false,
      false,
      true,
      false,
    ]);
    expect(aggregators.map((aggregator) => aggregator.supports(1))).toEqual([true, true, true, false, true]);
  });
});
