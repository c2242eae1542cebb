import { buildReport } from '../../../simulator/report/build-report';
import type {
  ObservedExecution,
  PlacedDca,
  PlacedLimitOrder,
  SimulationFacts,
  SimulationReport,
} from '../../../simulator/report/report-types';
import type { PlannedLimitOrder, ResolvedScenario } from '../../../simulator/scenario/scenario-types';

/**
 * A hand-made run of 10 blocks on WETH/USDC (chain 1) with one limit order of each outcome (filled twice, failed,
 * expired, missed, untriggered) and one DCA strategy of three iterations, over six transactions.
 */
export const PRICES = [3000, 3000, 3050, 3100, 3150, 3100, 3000, 2900, 2950, 3000, 3000];

const WETH = '0x' + '2'.repeat(40);
const USDC = '0x' + '3'.repeat(40);

export const TX = {
  a: '0x' + 'a'.repeat(64),
  b: '0x' + 'b'.repeat(64),
  c: '0x' + 'c'.repeat(64),
  d: '0x' + 'd'.repeat(64),
  e: '0x' + 'e'.repeat(64),
  f: '0x' + 'f'.repeat(64),
};

export function scenario(overrides: Partial<ResolvedScenario> = {}): ResolvedScenario {
  return {
    name: 'fixture-run',
    description: 'every outcome once',
    chains: [1],
    blockTimeSeconds: 12,
    blocks: 10,
    seed: 7,
    markets: [
      {
        chainId: 1,
        pair: 'WETH/USDC',
        path: { kind: 'points', points: [[0, 3000]] },
        base: 'WETH',
        quote: 'USDC',
        prices: PRICES,
      },
    ],
    limitOrders: [],
    dca: [],
    file: '/scenarios/fixture-run.json',
    ...overrides,
  };
}

function plan(key: string, sellsBase: boolean, trigger: string, atBlock = 0): PlannedLimitOrder {
  return {
    key,
    group: 0,
    chainId: 1,
    pair: 'WETH/USDC',
    sellsBase,
    sell: sellsBase ? 'WETH' : 'USDC',
    buy: sellsBase ? 'USDC' : 'WETH',
    amount: sellsBase ? '0.5' : '1000',
    trigger,
    atBlock,
    slippage: '1',
    maker: 0,
  };
}

function limit(
  id: string,
  p: PlannedLimitOrder,
  status: string,
  reasonFail: string[] = [],
  placedAtBlock = p.atBlock,
  onchainId = `0x${id}`,
): PlacedLimitOrder {
  return {
    plan: p,
    id,
    onchainId,
    placedAtBlock,
    status,
    txHash: '',
    reasonFail,
    diagnosis: null,
    expiresAt: 0,
  };
}

export function limitOrders(): PlacedLimitOrder[] {
  return [
    // Triggered at 3 (3100), a failed attempt at 4, filled at 5.
    limit('01', plan('L0.0', true, '3100'), 'completed'),
    // Needs the price at or below 1 / 0.00035 = 2857.14: never; the API failed it.
    limit('02', plan('L0.1', false, '0.00035'), 'failed', ['insufficient_allowance']),
    // Needs 3200: never reached; expired.
    limit('03', plan('L0.2', true, '3200'), 'failed', ['expired']),
    // Triggered at 4 (3150), one failed attempt, still pending at the end.
    {
      ...limit('04', plan('L0.3', true, '3150'), 'pending'),
      diagnosis: 'WAITING_FOR_BLOCK: tried again soon',
    },
    // Needs the price at or below 2500: never.
    limit('05', plan('L0.4', false, '0.0004'), 'pending'),
    // Needs the price at or below 1 / 0.000342465753 = 2920.0000: block 7 only. Planned for block 7, the API
    // took it at block 8: triggered at 7 all the same, filled at 8.
    limit('06', plan('L1.0', false, '0.000342465753', 7), 'completed', [], 8, '0xab06'),
  ];
}

/**
 * What the run measured: '01' executable at block 4 (filled at 5); '04' at blocks 4 and 5, never filled (a missed
 * order); '06' at 7 (filled at 8). '02', '03' and '05' were never triggered.
 */
export function executableSpans(): SimulationFacts['executable'] {
  return {
    '01': { first: 4, last: 4, blocks: 1 },
    '04': { first: 4, last: 5, blocks: 2 },
    '06': { first: 7, last: 7, blocks: 1 },
  };
}

export function dcaStrategies(): PlacedDca[] {
  return [
    {
      plan: {
        key: 'D0.0',
        group: 0,
        chainId: 1,
        pair: 'WETH/USDC',
        sellsBase: false,
        sell: 'USDC',
        buy: 'WETH',
        totalAmount: 600,
        iterations: 3,
        everyBlocks: 4,
        atBlock: 0,
        slippage: 1,
        maker: 1,
      },
      strategyId: 'strategy-1',
      placedAtBlock: 1,
      status: 'finished',
      orders: [
        {
          id: 'd1',
          amount: 200,
          onchainId: '0xd1',
          status: 'successful',
          transactionHash: TX.e,
          errorMessage: '',
        },
        {
          id: 'd2',
          amount: 200,
          onchainId: '0xd2',
          status: 'successful',
          transactionHash: TX.a,
          errorMessage: '',
        },
        {
          id: 'd3',
          amount: 200,
          onchainId: '0xd3',
          status: 'error',
          transactionHash: '',
          errorMessage: 'slippage exceeded',
        },
      ],
    },
  ];
}

function event(
  onchainId: string,
  block: number,
  txHash: string,
  gasUsed: number,
  batchSize: number,
  outcome: { sells: 'WETH' | 'USDC'; amountIn: string; fee: string; amountOut: string } | { reason: string },
): ObservedExecution {
  const executed = 'amountIn' in outcome;
  const [tokenIn, tokenOut] = !executed ? ['', ''] : outcome.sells === 'WETH' ? [WETH, USDC] : [USDC, WETH];
  return {
    chainId: 1,
    onchainId,
    block,
    txHash,
    gasUsed,
    batchSize,
    executed,
    maker: '0x' + '1'.repeat(40),
    tokenIn,
    tokenOut,
    amountIn: executed ? outcome.amountIn : '0',
    fee: executed ? outcome.fee : '0',
    amountOut: executed ? outcome.amountOut : '0',
    reason: executed ? null : outcome.reason,
    balanceChecked: executed,
  };
}

export function executions(): ObservedExecution[] {
  return [
    // As observed, not in block order: the builder sorts them.
    event('0x01', 5, TX.a, 300_000, 2, {
      sells: 'WETH',
      amountIn: '500000000000000000',
      fee: '1000000000000000',
      amountOut: '1550000000',
    }),
    event('0xd2', 5, TX.a, 300_000, 2, {
      sells: 'USDC',
      amountIn: '200000000',
      fee: '0',
      amountOut: '80000000000000000',
    }),
    event('0x01', 4, TX.c, 90_000, 1, { reason: 'price moved' }),
    event('0x02', 7, TX.b, 200_000, 2, { reason: 'TRANSFER_FAILED' }),
    event('0x04', 7, TX.b, 200_000, 2, { reason: 'slippage' }),
    // Upper-case hex from a node still joins its order.
    event('0xAB06', 8, TX.d, 150_000, 1, {
      sells: 'USDC',
      amountIn: '1000000000',
      fee: '2000000',
      amountOut: '340000000000000000',
    }),
    event('0xd1', 1, TX.e, 120_000, 1, {
      sells: 'USDC',
      amountIn: '200000000',
      fee: '0',
      amountOut: '62500000000000000',
    }),
    event('0xd3', 9, TX.f, 80_001, 1, { reason: 'SLIPPAGE' }),
  ];
}

export function facts(overrides: Partial<SimulationFacts> = {}): SimulationFacts {
  return {
    scenario: scenario(),
    seed: 7,
    tokens: {
      1: {
        WETH: { symbol: 'WETH', address: WETH, decimals: 18 },
        USDC: { symbol: 'USDC', address: USDC, decimals: 6 },
      },
    },
    realized: [PRICES.map((p) => p + 1)],
    limitOrders: limitOrders(),
    executable: executableSpans(),
    dca: dcaStrategies(),
    executions: executions(),
    timings: {
      startedAt: '2026-11-02T00:00:00.000Z',
      finishedAt: '2026-11-02T00:00:01.000Z',
      wallSeconds: 0.0123456,
      phases: { setup: 0.01, move: 0.0023456 },
    },
    forked: false,
    ...overrides,
  };
}

/** B: another seed; the missed order failed instead, the quote seller never filled, slower, and no DCA. */
export function otherReport(): SimulationReport {
  const other = facts({ seed: 8 });
  other.limitOrders[3].status = 'failed';
  other.limitOrders[3].reasonFail = ['slippage'];
  other.executions = other.executions.filter((e) => e.onchainId !== '0xAB06');
  other.executable['01'] = { first: 3, last: 4, blocks: 2 };
  other.timings = { ...other.timings, wallSeconds: 0.02 };
  const report = buildReport(other);
  report.dca = [];
  return report;
}
