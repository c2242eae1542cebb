import { readFileSync } from 'node:fs';
import { Interface, type JsonFragment } from 'ethers';
import { loadArtifact } from '../../contracts-abi/artifacts';

/**
 * The bridge contracts' interfaces, each built on first use: importing a module that encodes a deposit or decodes a
 * fill reads no artifact until it does so.
 */

/** The audited Across build the devnet deploys (npm @across-protocol/contracts); only its ABI is read here. */
export const SPOKE_POOL_ARTIFACT =
  '@across-protocol/contracts/dist/evm/artifacts/Ethereum_SpokePool.sol/Ethereum_SpokePool.json';

function once(build: () => Interface): () => Interface {
  let built: Interface | undefined;
  return () => (built ??= build());
}

/** The Across V3 SpokePool (deposit, fillRelay, fillStatuses, relayRootBundle, executeRelayerRefundLeaf, events). */
export const spokePoolInterface = once(() => {
  const json = JSON.parse(readFileSync(require.resolve(SPOKE_POOL_ARTIFACT), 'utf8')) as {
    abi: JsonFragment[];
  };
  return new Interface(json.abi);
});

/** Our CrossChainEntry: takes the fees in the source token, then deposits into the SpokePool or locks. */
export const crossChainEntryInterface = once(() => new Interface(loadArtifact('CrossChainEntry').abi));

/** Our RootBundleAdmin: the SpokePool's owner, where root bundles are proposed and relayed after a challenge. */
export const rootBundleAdminInterface = once(() => new Interface(loadArtifact('RootBundleAdmin').abi));

/** Our LockReleaseBridge: lock on the origin, release once per (originChainId, nonce) on the destination. */
export const lockReleaseBridgeInterface = once(() => new Interface(loadArtifact('LockReleaseBridge').abi));
