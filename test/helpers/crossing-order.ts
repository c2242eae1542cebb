import { JsonRpcProvider, MaxUint256, Wallet, type TransactionReceipt } from 'ethers';
import type { ManifestChain } from '../../devnet/manifest';
import { limitOrderBody, limitOrderTokens, type LimitOrderRequest } from '../factories/limit-orders';
import type { ApiClient } from './api-client';
import { approveExecutor, balanceOf, signPair, token } from './maker';

interface LimitOrderData {
  id: string;
  status: string;
  txHash: string;
}

/** A limit order any running keeper executes at once: 0.5 WETH for USDC with a trigger far below the market. */
export interface CrossingOrder {
  body: LimitOrderRequest;
  maker: Wallet;
  provider: JsonRpcProvider;
  usdcBefore: bigint;
}

/**
 * The maker (a manifest account) approves the OrderExecutor and signs the pair for the API key that will create the
 * order (its key id), as a client does from the spec.
 */
export async function crossingOrder(
  chain: ManifestChain,
  accountIndex: number,
  apiKey: string,
): Promise<CrossingOrder> {
  const provider = new JsonRpcProvider(chain.rpcUrl, chain.chainId, {
    staticNetwork: true,
    cacheTimeout: -1,
  });
  const maker = new Wallet(chain.accounts[accountIndex]!.privateKey, provider);
  const [weth, usdc] = [token(chain, 'WETH'), token(chain, 'USDC')];
  await approveExecutor(maker, chain, weth.address, MaxUint256);
  const body = limitOrderBody({
    accountTo: maker.address,
    chainId: chain.chainId,
    ...limitOrderTokens(weth, usdc),
    amount: '0.5',
    priceTrigger: '1000',
    price: '1000',
    expired: String(Date.now() + 3_600_000),
    gasPrice: '30',
    slippage: '1',
    signature: await signPair(maker, chain, maker.address, weth.address, usdc.address, apiKey),
  });
  return { body, maker, provider, usdcBefore: await balanceOf(provider, usdc.address, maker.address) };
}

/**
 * Waits until the order is completed (passing only through the statuses on the way), then checks the chain: a
 * successful receipt, and the maker paid at least 0.5 WETH × the 1000 trigger less 1 % slippage.
 */
export async function expectCrossingOrderExecuted(
  client: ApiClient,
  chain: ManifestChain,
  order: CrossingOrder,
  id: string,
): Promise<TransactionReceipt> {
  let current: LimitOrderData | undefined;
  for (const deadline = Date.now() + 60_000; current?.status !== 'completed';) {
    if (Date.now() > deadline) throw new Error(`order not completed: ${JSON.stringify(current)}`);
    await new Promise((r) => setTimeout(r, 250));
    current = (await client.get<LimitOrderData>(`/limit-order/${id}`)).body.data;
    expect(['pending', 'executing', 'submitted', 'completed']).toContain(current?.status);
  }
  const receipt = await order.provider.getTransactionReceipt(current.txHash);
  expect(receipt?.status).toBe(1);
  const usdc = token(chain, 'USDC');
  const gained = (await balanceOf(order.provider, usdc.address, order.maker.address)) - order.usdcBefore;
  expect(gained).toBeGreaterThanOrEqual(495_000_000n);
  order.provider.destroy();
  return receipt!;
}
