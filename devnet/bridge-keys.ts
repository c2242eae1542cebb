import { Wallet } from 'ethers';
import { devnetKeys } from './keys';

/** The settings that make the service relay and settle on the devnet's bridges. */
export type DevnetBridgeEnv = Record<
  'RELAYER_PRIVATE_KEY' | 'BRIDGE_ADMIN_PRIVATE_KEY' | 'RELAYER_ADDRESS' | 'LOCK_RELEASE_CONFIRMATIONS',
  string
>;

const PRIVATE_KEY = /^0x[0-9a-fA-F]{64}$/;

/**
 * On a devnet the keeper relays with the devnet's relayer key and settles with its bridge admin key, and the api
 * names that relayer in its quotes. An explicit RELAYER_PRIVATE_KEY / BRIDGE_ADMIN_PRIVATE_KEY / RELAYER_ADDRESS
 * wins; without RELAYER_ADDRESS the api names the relayer whose key the keeper uses. A malformed key is passed on
 * as it is, for the config's validation to report (without repeating it).
 * A devnet mines a block only when a transaction comes (unless DEVNET_BLOCK_TIME says otherwise), so a lock waiting
 * for blocks on top of it could wait for ever on an idle chain: the lock-and-release bridge releases after the lock's
 * own block there, unless LOCK_RELEASE_CONFIRMATIONS is set.
 */
export function devnetBridgeEnv(env: Partial<Record<string, string | undefined>>): DevnetBridgeEnv {
  const keys = devnetKeys(0);
  const relayerKey = env.RELAYER_PRIVATE_KEY || keys.relayer.privateKey;
  const relayerAddress = PRIVATE_KEY.test(relayerKey) ? new Wallet(relayerKey).address : '';
  return {
    RELAYER_PRIVATE_KEY: relayerKey,
    BRIDGE_ADMIN_PRIVATE_KEY: env.BRIDGE_ADMIN_PRIVATE_KEY || keys.bridgeAdmin.privateKey,
    RELAYER_ADDRESS: env.RELAYER_ADDRESS || relayerAddress,
    LOCK_RELEASE_CONFIRMATIONS: env.LOCK_RELEASE_CONFIRMATIONS || '1',
  };
}
