import { randomUUID } from 'node:crypto';
import { requiredAllowance } from '../../api/routes/order-authorization/required-allowance';
import type { DcaOrder, DcaStrategyWithOrders } from '../../shared/domain/dca';
import { newPendingLimitOrder, type LimitOrder } from '../../shared/domain/limit-order';

const order = (amount: string, status: LimitOrder['status'] = 'pending'): LimitOrder => ({
  ...newPendingLimitOrder(
    randomUUID(),
    'key',
    {
      accountTo: '0x90F79bf6EB2c4f870365E785982E1f101E93b906',
      chainId: 1,
      inTokenAddress: '0xA0b86991c6218b36c1d19D4a2e9Eb0cE3606eB48',
      outTokenAddress: '0xC02aaA39b223FE8D0A0e5C4F27eAD9083C756Cc2',
      tokenASymbol: 'USDC',
      tokenBSymbol: 'WETH',
      amount,
      price: '0.0003',
      priceTrigger: '0.0003',
      gasPrice: '20',
      slippage: '1',
      expired: '1900000000000',
      signature: '0x',
    },
    0,
  ),
  status,
});

const strategy = (
  totalAmount: number,
  iterations: number,
  settled: Array<[number, DcaOrder['status']]> = [],
  status: DcaStrategyWithOrders['status'] = 'active',
): DcaStrategyWithOrders =>
  ({
    totalAmount,
    iterations,
    status,
    orders: settled.map(([iteration, s]) => ({ iteration, status: s }) as DcaOrder),
  }) as DcaStrategyWithOrders;

/** A flat 1 USDC fee capped at 1 % of the amount: the cap shows where it bites. */
const fee = (amountIn: bigint): bigint => (amountIn / 100n < 1_000_000n ? amountIn / 100n : 1_000_000n);

describe('requiredAllowance (USDC, 6 decimals)', () => {
  it('counts open limit orders only, each with its fee', () => {
    const result = requiredAllowance({
      limitOrders: [
        order('100'),
        order('50', 'executing'),
        order('10', 'submitted'),
        order('999', 'completed'),
        order('999', 'failed'),
        order('999', 'cancelled'),
      ],
      strategies: [],
      decimals: 6,
      fee,
    });
    // 100 + 1 fee, 50 + 0.5 (capped), 10 + 0.1 (capped)
    expect(result).toEqual({ required: 161_600_000n, openLimitOrders: 3, activeStrategies: 0 });
  });

  it('counts the unsettled iterations of active strategies, the last one with the remainder', () => {
    const result = requiredAllowance({
      limitOrders: [],
      strategies: [
        // 1000.000001 in 3: 333.333333, 333.333333, 333.333335; iteration 0 done, 1 pending (still needs funds)
        strategy(1000.000001, 3, [
          [0, 'successful'],
          [1, 'pending'],
        ]),
        // every iteration settled: nothing left
        strategy(30, 3, [
          [0, 'successful'],
          [1, 'error'],
          [2, 'expired'],
        ]),
        strategy(500, 5, [], 'cancelled'),
        strategy(500, 5, [], 'finished'),
      ],
      decimals: 6,
      fee,
    });
    expect(result).toEqual({
      required: 333_333_333n + 1_000_000n + 333_333_335n + 1_000_000n,
      openLimitOrders: 0,
      activeStrategies: 2,
    });
  });

  it('leaves out amounts the keeper could never read (they fail without pulling tokens)', () => {
    const result = requiredAllowance({
      limitOrders: [order('1.0000001'), order('abc'), order('2')],
      strategies: [strategy(Number.NaN, 2)],
      decimals: 6,
      fee,
    });
    expect(result).toEqual({ required: 2_020_000n, openLimitOrders: 3, activeStrategies: 1 });
  });

  it('handles a strategy of a million iterations without looping over them', () => {
    const result = requiredAllowance({
      limitOrders: [],
      strategies: [strategy(1_000_000, 1_000_000, [[999_999, 'successful']])],
      decimals: 6,
      fee,
    });
    // 999,999 iterations of 1 USDC left, each with a 0.01 USDC fee
    expect(result.required).toBe(999_999n * 1_010_000n);
  });
});
