import { childPath, fieldPath } from '../../../simulator/scenario/field-path';
import { ScenarioError } from '../../../simulator/scenario/scenario-error';
import { parseScenario } from '../../../simulator/scenario/scenario-schema';
import { ISSUE_EXAMPLE } from './scenario-fixtures';

type Json = Record<string, unknown>;

const minimal = (): Json => ({
  name: 'm',
  chains: [1],
  blockTimeSeconds: 12,
  blocks: 100,
  markets: [
    {
      chainId: 1,
      pair: 'WETH/USDC',
      path: {
        kind: 'points',
        points: [
          [0, 3000],
          [100, 3100],
        ],
      },
    },
  ],
});

const limit = (fields: Json = {}): Json => ({
  chainId: 1,
  sell: 'WETH',
  buy: 'USDC',
  amount: '1',
  trigger: '3050',
  ...fields,
});
const dca = (fields: Json = {}): Json => ({
  chainId: 1,
  sell: 'USDC',
  buy: 'WETH',
  totalAmount: 100,
  iterations: 2,
  everyBlocks: 10,
  ...fields,
});

/** The message parseScenario throws for `json`, checking that it is a ScenarioError. */
function failure(json: unknown, source = 'dip.json'): string {
  try {
    parseScenario(json, source);
  } catch (err) {
    expect(err).toBeInstanceOf(ScenarioError);
    expect((err as Error).name).toBe('ScenarioError');
    return (err as Error).message;
  }
  throw new Error('parseScenario accepted the scenario');
}

describe('parseScenario', () => {
  it("accepts the issue's example and fills in the documented defaults", () => {
    expect(parseScenario(ISSUE_EXAMPLE, 'dip.json')).toEqual({
      ...ISSUE_EXAMPLE,
      limitOrders: [{ ...ISSUE_EXAMPLE.limitOrders[0], slippage: '1' }],
      dca: [{ ...ISSUE_EXAMPLE.dca[0], count: 1, slippage: 1 }],
    });
  });

  it('defaults seed, order lists, count, makers, atBlock and slippage, and leaves the input untouched', () => {
    const json = { ...minimal(), limitOrders: [limit()], dca: [dca()] };
    const before = structuredClone(json);
    const scenario = parseScenario(json, 'm.json');
    expect(json).toEqual(before);
    expect(scenario.seed).toBe(1);
    expect(scenario.limitOrders).toEqual([{ ...limit(), count: 1, makers: 1, atBlock: 0, slippage: '1' }]);
    expect(scenario.dca).toEqual([{ ...dca(), count: 1, atBlock: 0, slippage: 1 }]);
    expect(parseScenario(minimal(), 'm.json')).toMatchObject({ limitOrders: [], dca: [] });
  });

  it('accepts gbm and csv paths, a trigger range and optional fields', () => {
    const json = {
      ...minimal(),
      description: 'two markets',
      markets: [
        {
          chainId: 1,
          pair: 'WETH/USDC',
          path: { kind: 'gbm', start: 3000, drift: 0.1, volatility: 0.8, seed: 3 },
        },
        { chainId: 1, pair: 'WBTC/USDC', path: { kind: 'csv', file: 'btc.csv' } },
      ],
      limitOrders: [limit({ trigger: { from: '3000', to: '3300' }, count: 4, expiresAfterBlocks: 20 })],
      dca: [dca({ minPrice: 0.0002, maxPrice: 0.0004, slippage: 0.5 })],
    };
    expect(parseScenario(json, 'm.json')).toMatchObject({
      markets: json.markets,
      limitOrders: [{ trigger: { from: '3000', to: '3300' }, expiresAfterBlocks: 20 }],
      dca: [{ minPrice: 0.0002, maxPrice: 0.0004, slippage: 0.5 }],
    });
  });

  it('names the file and the field of a schema error', () => {
    const json = minimal();
    (json.markets as Json[])[0]!.path = { kind: 'points', points: [[0, 3000]] };
    expect(failure(json)).toBe('dip.json: markets[0].path.points: must NOT have fewer than 2 items');
  });

  it.each<[string, (json: Json) => void, string]>([
    ['a missing field', (j) => delete j.blocks, 'm.json: blocks: is required'],
    ['an unknown field', (j) => (j.colour = 'red'), 'm.json: colour: is not a known field'],
    [
      'an unknown field of a group',
      (j) => (j.limitOrders = [limit({ price: '1' })]),
      'm.json: limitOrders[0].price: is not a known field',
    ],
    ['zero blocks', (j) => (j.blocks = 0), 'm.json: blocks: must be >= 1'],
    ['too many blocks', (j) => (j.blocks = 100_001), 'm.json: blocks: must be <= 100000'],
    [
      'a fractional block time',
      (j) => (j.blockTimeSeconds = 1.5),
      'm.json: blockTimeSeconds: must be integer',
    ],
    [
      'a day-long block time',
      (j) => (j.blockTimeSeconds = 86_401),
      'm.json: blockTimeSeconds: must be <= 86400',
    ],
    ['a negative seed', (j) => (j.seed = -1), 'm.json: seed: must be >= 0'],
    ['no chains', (j) => (j.chains = []), 'm.json: chains: must NOT have fewer than 1 items'],
    [
      'a pair without a quote',
      (j) => ((j.markets as Json[])[0]!.pair = 'WETH'),
      'm.json: markets[0].pair: must be "BASE/QUOTE" by token symbol, e.g. "WETH/USDC"',
    ],
    [
      'an unknown path kind',
      (j) => ((j.markets as Json[])[0]!.path = { kind: 'random-walk' }),
      'm.json: markets[0].path.kind: must be one of "points", "gbm", "csv"',
    ],
    [
      'a path without kind',
      (j) => ((j.markets as Json[])[0]!.path = { points: [] }),
      'm.json: markets[0].path.kind: is required',
    ],
    [
      'a gbm path out of range',
      (j) => ((j.markets as Json[])[0]!.path = { kind: 'gbm', start: 0, drift: 0, volatility: 11 }),
      'm.json: markets[0].path.start: must be > 0; markets[0].path.volatility: must be <= 10',
    ],
    [
      'a negative volatility',
      (j) => ((j.markets as Json[])[0]!.path = { kind: 'gbm', start: 1, drift: 0, volatility: -0.1 }),
      'm.json: markets[0].path.volatility: must be >= 0',
    ],
    [
      'a zero price and a three-item point',
      (j) =>
        ((j.markets as Json[])[0]!.path = {
          kind: 'points',
          points: [
            [0, 0],
            [5, 1, 2],
          ],
        }),
      'm.json: markets[0].path.points[0][1]: must be > 0; markets[0].path.points[1]: must NOT have more than 2 items',
    ],
    [
      'an infinite price',
      (j) =>
        ((j.markets as Json[])[0]!.path = {
          kind: 'points',
          points: [
            [0, 1],
            [5, Number.POSITIVE_INFINITY],
          ],
        }),
      'm.json: markets[0].path.points[1][1]: must be number',
    ],
    [
      'a zero amount',
      (j) => (j.limitOrders = [limit({ amount: '0.000' })]),
      'm.json: limitOrders[0].amount: must be a decimal string greater than 0, e.g. "0.5"',
    ],
    [
      'an amount with an exponent',
      (j) => (j.limitOrders = [limit({ amount: '1e3' })]),
      'm.json: limitOrders[0].amount: must be a decimal string greater than 0, e.g. "0.5"',
    ],
    [
      'a numeric trigger',
      (j) => (j.limitOrders = [limit({ trigger: 3100 })]),
      'm.json: limitOrders[0].trigger: must be string or object',
    ],
    [
      'a zero trigger',
      (j) => (j.limitOrders = [limit({ trigger: '0' })]),
      'm.json: limitOrders[0].trigger: must be a decimal string greater than 0, e.g. "0.5"',
    ],
    [
      'a trigger range without `to` and a zero `from`',
      (j) => (j.limitOrders = [limit({ trigger: { from: '0' } })]),
      'm.json: limitOrders[0].trigger.to: is required; ' +
        'limitOrders[0].trigger.from: must be a decimal string greater than 0, e.g. "0.5"',
    ],
    [
      'a zero count',
      (j) => (j.limitOrders = [limit({ count: 0 })]),
      'm.json: limitOrders[0].count: must be >= 1',
    ],
    [
      'a count above 10000',
      (j) => (j.limitOrders = [limit({ count: 10_001, makers: 1 })]),
      'm.json: limitOrders[0].count: must be <= 10000',
    ],
    [
      'a slippage of 100 %',
      (j) => (j.limitOrders = [limit({ slippage: '100' })]),
      'm.json: limitOrders[0].slippage: must be a decimal string of a percent from 0 to below 100, e.g. "0.5"',
    ],
    [
      'zero expiry blocks',
      (j) => (j.limitOrders = [limit({ expiresAfterBlocks: 0 })]),
      'm.json: limitOrders[0].expiresAfterBlocks: must be >= 1',
    ],
    [
      'DCA iterations above 1000',
      (j) => (j.dca = [dca({ iterations: 1001 })]),
      'm.json: dca[0].iterations: must be <= 1000',
    ],
    [
      'DCA every 0 blocks',
      (j) => (j.dca = [dca({ everyBlocks: 0 })]),
      'm.json: dca[0].everyBlocks: must be >= 1',
    ],
    [
      'a zero DCA budget',
      (j) => (j.dca = [dca({ totalAmount: 0 })]),
      'm.json: dca[0].totalAmount: must be > 0',
    ],
    [
      'a DCA slippage of 100',
      (j) => (j.dca = [dca({ slippage: 100 })]),
      'm.json: dca[0].slippage: must be < 100',
    ],
  ])('reports %s', (_, change, message) => {
    const json = minimal();
    change(json);
    expect(failure(json, 'm.json')).toBe(message);
  });

  it('reports a scenario that is not an object', () => {
    expect(failure([1], 'm.json')).toBe('m.json: (root): must be object');
  });

  describe('rules across fields', () => {
    it('names a token that no market of the chain trades', () => {
      const json = { ...minimal(), limitOrders: [limit(), limit(), limit({ sell: 'WBTC' })] };
      expect(failure(json)).toBe(
        'dip.json: limitOrders[2].sell: "WBTC" is not the base or quote of a market on chain 1',
      );
    });

    it('matches symbols case-sensitively', () => {
      const json = { ...minimal(), dca: [dca({ buy: 'weth' })] };
      expect(failure(json)).toBe(
        'dip.json: dca[0].buy: "weth" is not the base or quote of a market on chain 1',
      );
    });

    it('refuses two tokens of the chain that are not one market', () => {
      const json = {
        ...minimal(),
        markets: [
          ...(minimal().markets as Json[]),
          { chainId: 1, pair: 'WBTC/DAI', path: { kind: 'gbm', start: 1, drift: 0, volatility: 0 } },
        ],
        limitOrders: [limit({ buy: 'DAI' })],
      };
      expect(failure(json)).toBe(
        'dip.json: limitOrders[0]: no market on chain 1 trades "WETH" against "DAI"',
      );
    });

    it('refuses a market of the same tokens on one chain, either way round, and a market on an unlisted chain', () => {
      const path = { kind: 'gbm', start: 1, drift: 0, volatility: 0 };
      const json = {
        ...minimal(),
        markets: [
          ...(minimal().markets as Json[]),
          { chainId: 1, pair: 'USDC/WETH', path },
          { chainId: 10, pair: 'WETH/USDC', path },
          { chainId: 1, pair: 'DAI/DAI', path },
        ],
      };
      expect(failure(json)).toBe(
        'dip.json: markets[1].pair: chain 1 already has a market of USDC and WETH (markets[0]); ' +
          'markets[2].chainId: chain 10 is not in chains; markets[3].pair: base and quote must differ',
      );
    });

    it('refuses a chain listed twice and orders on a chain that is not listed', () => {
      const json = {
        ...minimal(),
        chains: [1, 137, 1],
        limitOrders: [limit({ chainId: 5 })],
        dca: [dca({ chainId: 5 })],
      };
      expect(failure(json)).toBe(
        'dip.json: chains[2]: chain 1 is listed twice; limitOrders[0].chainId: chain 5 is not in chains; ' +
          'dca[0].chainId: chain 5 is not in chains',
      );
    });

    it('refuses selling a token for itself', () => {
      const json = { ...minimal(), limitOrders: [limit({ buy: 'WETH' })] };
      expect(failure(json)).toBe('dip.json: limitOrders[0].buy: must differ from sell');
    });

    it('refuses points out of order or after the last block', () => {
      const json = minimal();
      (json.markets as Json[])[0]!.path = {
        kind: 'points',
        points: [
          [0, 1],
          [50, 2],
          [50, 3],
          [40, 4],
          [101, 5],
        ],
      };
      expect(failure(json)).toBe(
        'dip.json: markets[0].path.points[2][0]: blocks must be ascending (50 comes after 50); ' +
          'markets[0].path.points[3][0]: blocks must be ascending (40 comes after 50); ' +
          "markets[0].path.points[4][0]: block 101 is after the run's last block (100)",
      );
    });

    it('refuses orders placed after the last block and more makers than orders', () => {
      const json = {
        ...minimal(),
        limitOrders: [limit({ atBlock: 101, count: 2, makers: 3 })],
        dca: [dca({ atBlock: 101 })],
      };
      expect(failure(json)).toBe(
        "dip.json: limitOrders[0].atBlock: block 101 is after the run's last block (100); " +
          'limitOrders[0].makers: must be at most count (2); ' +
          "dca[0].atBlock: block 101 is after the run's last block (100)",
      );
    });

    it('refuses DCA bounds the wrong way round and a frequency the API refuses', () => {
      const json = {
        ...minimal(),
        blockTimeSeconds: 86_400,
        dca: [dca({ everyBlocks: 366, minPrice: 2, maxPrice: 1 })],
      };
      expect(failure(json)).toBe(
        "dip.json: dca[0].everyBlocks: 366 blocks of 86400 s exceed the API's longest DCA frequency (31536000 s); " +
          'dca[0].maxPrice: must be at least minPrice (2)',
      );
    });
  });
});

describe('fieldPath', () => {
  it('writes a JSON pointer as a field path', () => {
    expect(fieldPath('')).toBe('(root)');
    expect(fieldPath('/markets/0/path/points/1/0')).toBe('markets[0].path.points[1][0]');
    expect(fieldPath('/a~1b/c~0d/x y')).toBe('["a/b"]["c~d"]["x y"]');
    expect(childPath('(root)', 'name')).toBe('name');
    expect(childPath('limitOrders[0]', 'sell')).toBe('limitOrders[0].sell');
    expect(childPath('limitOrders', 3)).toBe('limitOrders[3]');
  });
});
