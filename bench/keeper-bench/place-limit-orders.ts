import { getAddress, type Wallet } from 'ethers';
import type { ManifestChain } from '../../devnet/manifest';
import { limitOrderBody, limitOrderTokens } from '../../test/factories/limit-orders';
import type { ApiClient } from '../../test/helpers/api-client';
import { signPair, token } from '../../test/helpers/maker';

export interface PlaceLimitOrdersOptions {
  client: ApiClient;
  manifest: ManifestChain;
  makers: readonly Wallet[];
  count: number;
  /** Human-readable WETH per order. */
  amount: string;
  /** Trigger of order i, in USDC per WETH. */
  triggerOf: (i: number) => number;
  slippage: string;
  concurrency: number;
}

const DAY_MS = 86_400_000;

/**
 * Creates `count` WETH → USDC limit orders through the public API, round-robin over the makers, each maker with
 * its EIP-712 pair signature (signed once for the client's API key: it covers every order of the pair the key
 * creates). Returns the order ids in order.
 */
export async function placeLimitOrders(opts: PlaceLimitOrdersOptions): Promise<string[]> {
  const weth = token(opts.manifest, 'WETH');
  const usdc = token(opts.manifest, 'USDC');
  const signatures = await Promise.all(
    opts.makers.map((m) =>
      signPair(m, opts.manifest, m.address, weth.address, usdc.address, opts.client.credentials.apiKey),
    ),
  );
  const tokens = limitOrderTokens(
    { address: getAddress(weth.address), symbol: 'WETH' },
    { address: getAddress(usdc.address), symbol: 'USDC' },
  );
  const expired = String(Date.now() + DAY_MS);
  const ids: string[] = new Array<string>(opts.count);
  let next = 0;
  const worker = async (): Promise<void> => {
    for (let i = next++; i < opts.count; i = next++) {
      const m = i % opts.makers.length;
      const trigger = opts.triggerOf(i).toFixed(2);
      const res = await opts.client.post<{ id: string }>(
        '/limit-order',
        limitOrderBody({
          accountTo: getAddress(opts.makers[m]!.address),
          chainId: opts.manifest.chainId,
          ...tokens,
          amount: opts.amount,
          priceTrigger: trigger,
          price: trigger,
          expired,
          gasPrice: '100',
          slippage: opts.slippage,
          signature: signatures[m]!,
        }),
      );
      if (res.status !== 200 || !res.body.data) {
        throw new Error(`POST /limit-order #${i}: ${res.status} ${res.text}`);
      }
      ids[i] = res.body.data.id;
    }
  };
  await Promise.all(Array.from({ length: opts.concurrency }, worker));
  return ids;
}
