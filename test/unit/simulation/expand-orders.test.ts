import { expandOrders, spreadTrigger } from '../../../simulator/scenario/expand-orders';
import { ScenarioError } from '../../../simulator/scenario/scenario-error';
import { parseScenario } from '../../../simulator/scenario/scenario-schema';
import type { Scenario } from '../../../simulator/scenario/scenario-types';
import { ISSUE_EXAMPLE as RAW_EXAMPLE } from './scenario-fixtures';

const ISSUE_EXAMPLE = parseScenario(RAW_EXAMPLE, 'dip.json');

describe('expandOrders', () => {
  it("expands the issue's example: 8 orders over 2 makers, then one DCA strategy with its own maker", () => {
    const plan = expandOrders(ISSUE_EXAMPLE);
    expect(plan.makers).toBe(3);
    expect(plan.limit).toHaveLength(8);
    expect(plan.limit[0]).toEqual({
      key: 'L0.0',
      group: 0,
      chainId: 1,
      pair: 'WETH/USDC',
      sellsBase: true,
      sell: 'WETH',
      buy: 'USDC',
      amount: '0.5',
      trigger: '3100',
      atBlock: 0,
      slippage: '1',
      maker: 0,
    });
    expect(plan.limit.map((o) => [o.key, o.maker, o.trigger])).toEqual([
      ['L0.0', 0, '3100'],
      ['L0.1', 1, '3100'],
      ['L0.2', 0, '3100'],
      ['L0.3', 1, '3100'],
      ['L0.4', 0, '3100'],
      ['L0.5', 1, '3100'],
      ['L0.6', 0, '3100'],
      ['L0.7', 1, '3100'],
    ]);
    expect(plan.dca).toEqual([
      {
        key: 'D0.0',
        group: 0,
        chainId: 1,
        pair: 'WETH/USDC',
        sellsBase: false,
        sell: 'USDC',
        buy: 'WETH',
        totalAmount: 600,
        iterations: 3,
        everyBlocks: 50,
        atBlock: 0,
        slippage: 1,
        maker: 2,
      },
    ]);
  });

  it('gives each group fresh makers: limit groups first, then one per DCA strategy', () => {
    const scenario: Scenario = {
      ...ISSUE_EXAMPLE,
      markets: [
        ...ISSUE_EXAMPLE.markets,
        { chainId: 1, pair: 'WBTC/USDC', path: { kind: 'gbm', start: 1, drift: 0, volatility: 0 } },
      ],
      limitOrders: [
        { ...ISSUE_EXAMPLE.limitOrders[0]!, count: 3, makers: 2 },
        {
          chainId: 1,
          sell: 'USDC',
          buy: 'WBTC',
          amount: '100',
          trigger: { from: '0.00001', to: '0.00002' },
          count: 3,
          makers: 3,
          atBlock: 10,
          expiresAfterBlocks: 40,
          slippage: '0.5',
        },
      ],
      dca: [
        { ...ISSUE_EXAMPLE.dca[0]!, count: 2 },
        { ...ISSUE_EXAMPLE.dca[0]!, sell: 'WBTC', buy: 'USDC', count: 1, minPrice: 20000 },
      ],
    };
    const plan = expandOrders(scenario);
    expect(plan.makers).toBe(8);
    expect(plan.limit.map((o) => [o.key, o.group, o.maker, o.trigger])).toEqual([
      ['L0.0', 0, 0, '3100'],
      ['L0.1', 0, 1, '3100'],
      ['L0.2', 0, 0, '3100'],
      ['L1.0', 1, 2, '0.00001'],
      ['L1.1', 1, 3, '0.000015'],
      ['L1.2', 1, 4, '0.00002'],
    ]);
    expect(plan.limit[3]).toMatchObject({
      pair: 'WBTC/USDC',
      sellsBase: false,
      atBlock: 10,
      expiresAfterBlocks: 40,
      slippage: '0.5',
    });
    expect(plan.limit[0]).not.toHaveProperty('expiresAfterBlocks');
    expect(plan.dca.map((d) => [d.key, d.group, d.maker, d.pair, d.sellsBase])).toEqual([
      ['D0.0', 0, 5, 'WETH/USDC', false],
      ['D0.1', 0, 6, 'WETH/USDC', false],
      ['D1.0', 1, 7, 'WBTC/USDC', true],
    ]);
    expect(plan.dca[2]).toMatchObject({ minPrice: 20000 });
    expect(plan.dca[0]).not.toHaveProperty('minPrice');
    expect(plan.dca[0]).not.toHaveProperty('maxPrice');
  });

  it('refuses a group with no market (a scenario that did not go through parseScenario)', () => {
    const scenario: Scenario = { ...ISSUE_EXAMPLE, dca: [{ ...ISSUE_EXAMPLE.dca[0]!, buy: 'DAI' }] };
    expect(() => expandOrders(scenario)).toThrow(ScenarioError);
    expect(() => expandOrders(scenario)).toThrow(
      new ScenarioError('dca[0]: no market on chain 1 trades "USDC" against "DAI"'),
    );
  });
});

describe('spreadTrigger', () => {
  it('spreads a range evenly over the group, both ends included', () => {
    const range = { from: '3000', to: '3300' };
    expect([0, 1, 2, 3].map((i) => spreadTrigger(range, i, 4))).toEqual(['3000', '3100', '3200', '3300']);
    expect([0, 1, 2].map((i) => spreadTrigger({ from: '2', to: '1' }, i, 3))).toEqual(['2', '1.5', '1']);
  });

  it('writes at most 10 significant digits and never an exponent', () => {
    expect([0, 1, 2, 3].map((i) => spreadTrigger({ from: '1', to: '2' }, i, 4))).toEqual([
      '1',
      '1.333333333',
      '1.666666667',
      '2',
    ]);
    expect(spreadTrigger({ from: '0.0000000001', to: '0.0000000003' }, 1, 3)).toBe('0.0000000002');
    expect(spreadTrigger({ from: '1000000000000000000000', to: '3000000000000000000000' }, 1, 3)).toBe(
      '2000000000000000000000',
    );
    // In doubles these are 0.30000000000000004 and 0.09999999999999998: rounding hides the noise.
    expect(spreadTrigger({ from: '0.1', to: '0.4' }, 2, 4)).toBe('0.3');
    expect(spreadTrigger({ from: '0.7', to: '0.1' }, 3, 4)).toBe('0.1');
  });

  it('takes `from` as written for a group of one, and a plain trigger as written', () => {
    expect(spreadTrigger({ from: '3000.123456789012', to: '9' }, 0, 1)).toBe('3000.123456789012');
    expect(spreadTrigger('0.000333333333333', 5, 10)).toBe('0.000333333333333');
  });
});
