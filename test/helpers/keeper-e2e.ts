import { MaxUint256, type Wallet } from 'ethers';
import type { ManifestChain, ManifestToken } from '../../devnet/manifest';
import type { ApiClient } from './api-client';
import { approveExecutor, balanceOf, makerWallets, maxFeeBps, token, waitUntilPairAccepted } from './maker';
import { startService, type RunningService, type ServiceOptions } from './service-harness';

/**
 * What the keeper end-to-end suites that sell WETH for USDC start from: the whole service on a devnet chain, its
 * manifest makers, both tokens and the OrderExecutor's fee cap.
 */
export interface WethUsdcKeeperE2e {
  service: RunningService;
  chain: ManifestChain;
  client: ApiClient;
  makers: Wallet[];
  weth: ManifestToken;
  usdc: ManifestToken;
  /** The most fee, in basis points of the amount in, the contract lets the keeper charge. */
  capBps: bigint;
  balances(owner: string): Promise<{ weth: bigint; usdc: bigint }>;
}

/**
 * Starts the service and returns once the keeper accepts WETH/USDC orders: it prices a pair only after its pool
 * state is loaded (tens of seconds on a small machine), and a test's order or strategy slot must not pass unpriced.
 */
export async function startWethUsdcKeeperE2e(options: ServiceOptions = {}): Promise<WethUsdcKeeperE2e> {
  const service = await startService(options);
  try {
    const chain = service.manifest;
    const makers = makerWallets(chain, service.provider);
    const weth = token(chain, 'WETH');
    const usdc = token(chain, 'USDC');
    const capBps = await maxFeeBps(service.provider, chain);
    await waitUntilPairAccepted(service.client, chain, makers[0]!, weth, usdc);
    const balances = async (owner: string): Promise<{ weth: bigint; usdc: bigint }> => {
      const [w, u] = await Promise.all([
        balanceOf(service.provider, weth.address, owner),
        balanceOf(service.provider, usdc.address, owner),
      ]);
      return { weth: w, usdc: u };
    };
    return { service, chain, client: service.client, makers, weth, usdc, capBps, balances };
  } catch (err) {
    await service.close();
    throw err;
  }
}

/**
 * Registers, in the describe block it is called in, a beforeAll that starts a WethUsdcKeeperE2e of the block's own
 * (`options`), hands it to `use`, and has every maker approve the OrderExecutor for all its WETH; and an afterAll
 * that closes it. The allowances are set before any case runs: a revert to a snapshot a case takes keeps them.
 */
export function onItsOwnWethUsdcKeeperE2e(
  options: ServiceOptions,
  use: (e2e: WethUsdcKeeperE2e) => void,
): void {
  let e2e: WethUsdcKeeperE2e | undefined;
  beforeAll(async () => {
    e2e = await startWethUsdcKeeperE2e(options);
    use(e2e);
    for (const maker of e2e.makers) await approveExecutor(maker, e2e.chain, e2e.weth.address, MaxUint256);
  }, 150_000);

  afterAll(async () => {
    await e2e?.service.close();
  });
}
