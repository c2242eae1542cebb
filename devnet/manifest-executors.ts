import { ConfigError } from '../shared/config/load-config';
import { loadDevnetConfig } from './devnet-config';
import { devnetKeys } from './keys';
import type { ManifestChains } from './manifest-chains';

/**
 * The executor keys of a keeper run apart on a devnet (DEVNET_MANIFEST) without keys of its own: the devnet's
 * registered executor wallets, DEVNET_EXECUTORS of them (the count the devnet was started with). These keys are
 * public, so they are handed out only for a manifest the devnet wrote: every chain lists the test mnemonic's
 * accounts. A keeper given a chains file never gets them.
 */
export function devnetExecutorKeys(
  devnet: ManifestChains,
  env: Partial<Record<string, string | undefined>>,
): string[] {
  // Validated as `npm start` and `npm run devnet` validate it, so the same value means the same wallets.
  const { executorCount } = loadDevnetConfig({ DEVNET_EXECUTORS: env.DEVNET_EXECUTORS });
  const keys = devnetKeys(executorCount);
  const testAccounts = keys.accounts.map((a) => a.address).join();
  for (const chain of devnet.manifest.chains) {
    if (chain.accounts.map((a) => a.address).join() !== testAccounts)
      throw new ConfigError(
        `Invalid configuration: DEVNET_MANIFEST=${JSON.stringify(env.DEVNET_MANIFEST ?? '')} does not list the ` +
          `devnet's test accounts on chain ${chain.chainId}, so its chains may not be local: set ` +
          'EXECUTOR_PRIVATE_KEYS or EXECUTOR_KEYSTORE_FILES',
      );
  }
  return keys.executors.map((w) => w.privateKey);
}
