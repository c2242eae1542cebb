import type { ChainConfig, KeeperConfig } from '../../shared/config/config-schema';
import type { Logger } from '../../shared/log/create-logger';
import type { RawRpc } from './raw-rpc';
import { PrivateSendPolicy } from './private-send-policy';
import { PublicSendPolicy } from './public-send-policy';
import type { SendPolicy } from './send-policy';

export type SendPolicySettings = Pick<
  KeeperConfig,
  'privateRpcUrls' | 'privateFallbackBlocks' | 'privateFallbackPublic'
>;

/** The chain entry's own list wins (`[]` there: public only), then KEEPER_PRIVATE_RPC_URLS', then none. */
export function privateUrlsOf(
  chain: Pick<ChainConfig, 'chainId' | 'privateRpcUrls'>,
  keeper: Pick<KeeperConfig, 'privateRpcUrls'>,
): readonly string[] {
  return chain.privateRpcUrls ?? keeper.privateRpcUrls.find((c) => c.chainId === chain.chainId)?.urls ?? [];
}

/**
 * Where one chain's signed transactions go out: its private endpoints when it has any, else its public RPCs
 * (`rpc`, which also serves the private policy's fallback). Built once per chain and shared by every wallet that
 * sends on it (executors, relayer, bridge admin) and by the follower's re-broadcasts, so that no path of the chain
 * leaks a transaction to the public mempool by going around it.
 */
export function sendPolicyOf(
  chain: Pick<ChainConfig, 'chainId' | 'privateRpcUrls'>,
  rpc: RawRpc,
  keeper: SendPolicySettings,
  log: Logger,
): SendPolicy {
  const publicPolicy = new PublicSendPolicy(rpc);
  const urls = privateUrlsOf(chain, keeper);
  if (urls.length === 0) return publicPolicy;
  const policy = new PrivateSendPolicy({
    chainId: chain.chainId,
    urls,
    publicPolicy,
    fallbackAfterBlocks: keeper.privateFallbackBlocks,
    fallbackToPublic: keeper.privateFallbackPublic,
    log,
  });
  log.info(
    {
      chainId: chain.chainId,
      privateRpcs: policy.origins,
      fallbackAfterBlocks: keeper.privateFallbackPublic ? keeper.privateFallbackBlocks : null,
    },
    'transactions are sent through private RPCs',
  );
  return policy;
}

/** One policy per chain that has a client (the keys of the map), for the keeper's wiring. */
export function sendPoliciesOf(
  chains: readonly Pick<ChainConfig, 'chainId' | 'privateRpcUrls'>[],
  clients: { find(chainId: number): RawRpc | undefined },
  keeper: SendPolicySettings,
  log: Logger,
): ReadonlyMap<number, SendPolicy> {
  const policies = new Map<number, SendPolicy>();
  for (const chain of chains) {
    const client = clients.find(chain.chainId);
    if (client)
      policies.set(chain.chainId, sendPolicyOf(chain, client, keeper, log.child({ chainId: chain.chainId })));
  }
  for (const { chainId } of keeper.privateRpcUrls) {
    // A typo in the chain id would otherwise leave that chain public without a word.
    if (!policies.has(chainId))
      log.warn({ chainId }, 'KEEPER_PRIVATE_RPC_URLS names a chain the keeper does not serve');
  }
  return policies;
}
