import { getAddress, parseUnits, type Wallet } from 'ethers';
import PQueue from 'p-queue';
import { plainDecimalOf } from '../../shared/domain/amount-bounds';
import { iterationAmount } from '../../shared/domain/dca-iteration-amount';
import { integratorOf, orderKeyOf, orderRefOf } from '../../shared/domain/pair-authorization';
import type { ManifestChain } from '../../devnet/manifest';
import type { PlannedDca, PlannedLimitOrder } from '../scenario/scenario-types';
import { pairKey, tokenOf, type PairSignatures } from './makers';
import type { SimApiClient } from './sim-api-client';

/** Creates in flight at once: the api's own limits, not the run's, decide how fast orders go in. */
const PLACE_CONCURRENCY = 8;
/** `gasPrice` of a limit order is stored with it and not a cap (spec): the run sends a plain 1 gwei. */
const ORDER_GAS_PRICE = '1';

export interface PlacedLimit {
  plan: PlannedLimitOrder;
  id: string;
  onchainId: string;
  placedAtBlock: number;
  expiresAt: number;
}

export interface PlacedStrategy {
  plan: PlannedDca;
  strategyId: string;
  placedAtBlock: number;
}

export interface PlacementContext {
  api: SimApiClient;
  chains: ReadonlyMap<number, ManifestChain>;
  makers: readonly Wallet[];
  signatures: ReadonlyMap<number, PairSignatures>;
  blockTimeSeconds: number;
}

function signatureOf(
  ctx: PlacementContext,
  chain: ManifestChain,
  maker: string,
  sell: string,
  buy: string,
): string {
  const key = pairKey(maker, tokenOf(chain, sell).address, tokenOf(chain, buy).address);
  const signature = ctx.signatures.get(chain.chainId)?.get(key);
  if (!signature)
    throw new Error(`no pair signature of ${maker} for ${sell}/${buy} on chain ${chain.chainId}`);
  return signature;
}

function chainOf(ctx: PlacementContext, chainId: number): ManifestChain {
  const chain = ctx.chains.get(chainId);
  if (!chain) throw new Error(`chain ${chainId} is not running`);
  return chain;
}

/**
 * The run's key (shared/domain orderKeyOf: OrderExecutor.orderId's fields but the execution index, which the store
 * gives an order at the keeper's claim and an integrator never sees) of an order the run placed (limit order, or DCA
 * iteration): its maker, pair, the run's API key (integrator), its service id (ref) and the amount it sells, in base
 * units. The chain observer reads the same key from each batch's calldata.
 */
function onchainIdOf(
  ctx: PlacementContext,
  plan: { chainId: number; maker: number; sell: string; buy: string },
  serviceId: string,
  amountIn: bigint,
): string {
  const chain = chainOf(ctx, plan.chainId);
  return orderKeyOf({
    maker: ctx.makers[plan.maker].address,
    tokenIn: tokenOf(chain, plan.sell).address,
    tokenOut: tokenOf(chain, plan.buy).address,
    integrator: integratorOf(ctx.api.apiKey),
    ref: orderRefOf(serviceId),
    amountIn,
  });
}

/** The key of a placed limit order: its amount as the keeper reads the decimal string sent. */
function limitOnchainId(ctx: PlacementContext, plan: PlannedLimitOrder, orderId: string): string {
  const decimals = tokenOf(chainOf(ctx, plan.chainId), plan.sell).decimals;
  return onchainIdOf(ctx, plan, orderId, parseUnits(plan.amount, decimals));
}

/**
 * The key of iteration `k` (service id `orderId`) of a strategy the run placed: the iteration sells
 * floor(total / iterations), the last one the remainder too, of the total as the keeper reads the JSON number.
 */
export function dcaOnchainId(ctx: PlacementContext, plan: PlannedDca, k: number, orderId: string): string {
  const decimals = tokenOf(chainOf(ctx, plan.chainId), plan.sell).decimals;
  const total = parseUnits(plainDecimalOf(plan.totalAmount), decimals);
  return onchainIdOf(ctx, plan, orderId, iterationAmount(total, plan.iterations, k));
}

/**
 * Places one block's orders through the public API, exactly as an integrator would: POST /limit-order with the
 * spec's decimal strings and the maker's pair signature, POST /dca-order/strategies with JSON numbers and the
 * frequency in seconds. `expired` of an order with `expiresAfterBlocks` is the timestamp of that block.
 */
export async function placeOrders(
  ctx: PlacementContext,
  block: number,
  blockTimestamp: (block: number) => number,
  lastTimestamp: number,
  limit: readonly PlannedLimitOrder[],
  dca: readonly PlannedDca[],
): Promise<{ limit: PlacedLimit[]; dca: PlacedStrategy[] }> {
  const queue = new PQueue({ concurrency: PLACE_CONCURRENCY });
  const placedLimit = limit.map((plan) =>
    queue.add(async (): Promise<PlacedLimit> => {
      const chain = chainOf(ctx, plan.chainId);
      const maker = getAddress(ctx.makers[plan.maker].address);
      const sell = tokenOf(chain, plan.sell);
      const buy = tokenOf(chain, plan.buy);
      // Without its own expiry an order outlives the run by a day.
      const expiresAt =
        plan.expiresAfterBlocks === undefined
          ? (lastTimestamp + 86_400) * 1000
          : blockTimestamp(block + plan.expiresAfterBlocks) * 1000;
      const order = await ctx.api.post<{ id: string }>('/limit-order', {
        accountTo: maker,
        chainId: plan.chainId,
        inTokenAddress: getAddress(sell.address),
        outTokenAddress: getAddress(buy.address),
        tokenASymbol: sell.symbol,
        tokenBSymbol: buy.symbol,
        amount: plan.amount,
        priceTrigger: plan.trigger,
        price: plan.trigger,
        expired: String(expiresAt),
        gasPrice: ORDER_GAS_PRICE,
        slippage: plan.slippage,
        signature: signatureOf(ctx, chain, maker, plan.sell, plan.buy),
      });
      return {
        plan,
        id: order.id,
        onchainId: limitOnchainId(ctx, plan, order.id),
        placedAtBlock: block,
        expiresAt,
      };
    }),
  );
  const placedDca = dca.map((plan) =>
    queue.add(async (): Promise<PlacedStrategy> => {
      const chain = chainOf(ctx, plan.chainId);
      const maker = getAddress(ctx.makers[plan.maker].address);
      const sell = tokenOf(chain, plan.sell);
      const buy = tokenOf(chain, plan.buy);
      const strategy = await ctx.api.post<{ id: string }>('/dca-order/strategies', {
        accountTo: maker,
        chainIdFrom: plan.chainId,
        chainIdTo: plan.chainId,
        tokenAddressFrom: getAddress(sell.address),
        tokenAddressTo: getAddress(buy.address),
        tokenSymbolFrom: sell.symbol,
        tokenSymbolTo: buy.symbol,
        pair: `${sell.symbol}/${buy.symbol}`,
        totalAmount: plan.totalAmount,
        iterations: plan.iterations,
        frequency: plan.everyBlocks * ctx.blockTimeSeconds,
        slippage: plan.slippage,
        ...(plan.minPrice === undefined ? {} : { minPrice: plan.minPrice }),
        ...(plan.maxPrice === undefined ? {} : { maxPrice: plan.maxPrice }),
        signature: signatureOf(ctx, chain, maker, plan.sell, plan.buy),
      });
      return { plan, strategyId: strategy.id, placedAtBlock: block };
    }),
  );
  // Every placement ends before the run goes on (a failed one stops the run, but never with others still in flight).
  const [limitDone, dcaDone] = await Promise.all([
    Promise.allSettled(placedLimit),
    Promise.allSettled(placedDca),
  ]);
  const failed = [...limitDone, ...dcaDone].find((r): r is PromiseRejectedResult => r.status === 'rejected');
  if (failed) throw failed.reason;
  const values = <T>(results: Array<PromiseSettledResult<T | void>>): T[] =>
    results.map((r) => {
      if (r.status !== 'fulfilled' || !r.value) throw new Error('an order placement ended without a result');
      return r.value;
    });
  return { limit: values(limitDone), dca: values(dcaDone) };
}
