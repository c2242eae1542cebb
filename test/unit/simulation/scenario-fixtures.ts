import { ScenarioError } from '../../../simulator/scenario/scenario-error';

/** The scenario of issue 13, verbatim (the shipped simulations/dip-and-rally.json without its description). */
export const ISSUE_EXAMPLE = {
  name: 'dip-and-rally',
  chains: [1],
  blockTimeSeconds: 12,
  blocks: 200,
  seed: 7,
  markets: [
    {
      chainId: 1,
      pair: 'WETH/USDC',
      path: {
        kind: 'points',
        points: [
          [0, 3000],
          [60, 2800],
          [160, 3300],
        ],
      },
    },
  ],
  limitOrders: [
    {
      chainId: 1,
      sell: 'WETH',
      buy: 'USDC',
      amount: '0.5',
      trigger: '3100',
      count: 8,
      makers: 2,
      atBlock: 0,
    },
  ],
  dca: [
    { chainId: 1, sell: 'USDC', buy: 'WETH', totalAmount: 600, iterations: 3, everyBlocks: 50, atBlock: 0 },
  ],
};

/** The message of the ScenarioError that `run` throws (fails the test if it throws nothing or something else). */
export function scenarioErrorOf(run: () => unknown): string {
  try {
    run();
  } catch (err) {
    expect(err).toBeInstanceOf(ScenarioError);
    return (err as Error).message;
  }
  throw new Error('no error');
}
