import type { AppConfig } from '../../shared/config/config-schema';
import { ConfigError, loadConfig } from '../../shared/config/load-config';
import { devnetBridgeEnv } from '../bridge-keys';
import { manifestChainsOf, type ManifestChains } from '../manifest-chains';

/**
 * The configuration of an api or keeper run apart on the devnet named by DEVNET_MANIFEST: its chains, and the
 * bridges' keys and relayer address of the devnet unless set explicitly.
 */
export function apartConfig(env: NodeJS.ProcessEnv): { devnet: ManifestChains; config: AppConfig } {
  const devnet = manifestChainsOf(env);
  if (!devnet)
    throw new ConfigError(
      'Invalid configuration: DEVNET_MANIFEST is empty: name the devnet.json that `npm run devnet` wrote',
    );
  return { devnet, config: loadConfig({ ...env, ...devnetBridgeEnv(env) }, { chains: devnet.chains }) };
}
