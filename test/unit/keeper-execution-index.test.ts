import { getAddress } from 'ethers';
import { readLimitOrder, type ClaimContext } from '../../keeper/claim/read-claimed';
import {
  batchOrderIdentities,
  encodeExecuteBatch,
  withExecutionIndices,
  type BatchGroup,
} from '../../keeper/plan/execute-batch-call';
import { integratorOf, onchainOrderIdOf, orderRefOf } from '../../shared/domain/pair-authorization';
import type { KeeperLimitOrder } from '../../shared/store/repositories/keeper-limit-orders-repository';
import { CHAIN_1 } from '../factories/defaults';
import { STORED_API_KEY, storedLimitOrder } from '../factories/stored-orders';

/**
 * The execution index from the claim to the calldata: read with the claimed order (none: the order waits, it is never
 * sent without one), bound into its on-chain id, carried into executeBatch, and read back from a signed batch.
 */

const ctx: ClaimContext = {
  owner: 'keeper-1',
  leaseMs: 60_000,
  now: 0,
  triggerBlock: 7,
  tokens: { decimalsOf: (_chainId, address) => (address === CHAIN_1.WETH.address ? 18 : 6) },
};

const claimed = (execIndex: bigint | null): KeeperLimitOrder => ({
  ...storedLimitOrder(),
  keeperTxId: null,
  execIndex,
});

describe('execution index of a claimed order', () => {
  it('reads the index the claim gave the order into its on-chain id', () => {
    const order = claimed(4_096n);
    const read = readLimitOrder(order, ctx);
    if (!('order' in read)) throw new Error(`not read: ${read.reason}`);
    expect(read.order.executionIndex).toBe(4_096n);
    expect(read.order.onchainId).toBe(
      onchainOrderIdOf({
        maker: order.accountTo,
        tokenIn: order.inTokenAddress,
        tokenOut: order.outTokenAddress,
        integrator: integratorOf(STORED_API_KEY),
        ref: orderRefOf(order.id),
        amountIn: 1_500_000_000_000_000_000n,
        index: 4_096n,
      }),
    );
    // The same order under another index is another on-chain order.
    const other = readLimitOrder(claimed(4_097n), ctx);
    expect('order' in other && other.order.onchainId).not.toBe(read.order.onchainId);
  });

  it('does not execute an order the claim gave no index (the store’s fault: it backs off)', () => {
    expect(readLimitOrder(claimed(null), ctx)).toEqual({
      reason: 'KEEPER_ERROR',
      detail: 'the claim gave the order no execution index',
    });
    expect(readLimitOrder(claimed(0n), ctx)).toMatchObject({ reason: 'KEEPER_ERROR' });
    expect(readLimitOrder(claimed(2n ** 64n), ctx)).toMatchObject({ reason: 'KEEPER_ERROR' });
  });
});

describe('execution index in the batch calldata', () => {
  const maker = getAddress('0x' + 'a1'.repeat(20));
  const refs = [orderRefOf('order-1'), orderRefOf('order-2')];
  const group: BatchGroup = {
    tokenIn: getAddress(CHAIN_1.WETH.address),
    tokenOut: getAddress(CHAIN_1.USDC.address),
    paths: [],
    orders: refs.map((ref, i) => ({
      ref,
      integrator: integratorOf('key'),
      maker,
      amountIn: BigInt(i + 1) * 10n ** 18n,
      fee: 0n,
      minAmountOut: 1n,
      signature: '0x' + '11'.repeat(65),
      maxFeeBps: 500,
    })),
  };

  it('refuses to encode an order without its index', () => {
    expect(() => encodeExecuteBatch([group], 1n)).toThrow(/no valid execution index/);
  });

  it('takes each planned order’s index by reference and reads it back with the on-chain id it binds', () => {
    const data = encodeExecuteBatch(
      [
        withExecutionIndices(group, [
          { ref: refs[1]!, executionIndex: 12n },
          { ref: refs[0]!, executionIndex: 11n },
        ]),
      ],
      1n,
    );
    const identities = batchOrderIdentities(data);
    expect([...identities.values()].map((o) => o.index)).toEqual([11n, 12n]);
    expect(identities.get(refs[0]!.toLowerCase())).toEqual({
      onchainId: onchainOrderIdOf({
        maker,
        tokenIn: group.tokenIn,
        tokenOut: group.tokenOut,
        integrator: integratorOf('key'),
        ref: refs[0]!,
        amountIn: 10n ** 18n,
        index: 11n,
      }),
      maker: maker.toLowerCase(),
      amountIn: 10n ** 18n,
      index: 11n,
    });
  });
});
