import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { JsonFragment } from 'ethers';

/** A compiled contract as committed in contracts-abi/artifacts/<contractName>.json. */
export interface ContractArtifact {
  contractName: string;
  abi: JsonFragment[];
  /** Creation code, 0x-hex. */
  bytecode: string;
  /** Runtime code, 0x-hex. */
  deployedBytecode: string;
}

/**
 * Our deployable contracts and OpenZeppelin's TimelockController (the owner in production); the test-only ones exist
 * on devnets and in tests only.
 */
export type ContractName =
  | 'SwapRouter'
  | 'OrderExecutor'
  | 'TokenSpender'
  | 'TestToken'
  | 'TestPriceFeed'
  | 'TestContractWallet'
  | 'PriceOracle'
  | 'TestExternalSource'
  | 'TestSwapCaller'
  | 'WrappedNative'
  | 'CrossChainEntry'
  | 'LockReleaseBridge'
  | 'RootBundleAdmin'
  | 'StableSwapFactory'
  | 'StableSwapPool'
  | 'TimelockController';

export const ARTIFACTS_DIR = join(__dirname, 'artifacts');

export function artifactPath(name: string): string {
  return join(ARTIFACTS_DIR, `${name}.json`);
}

/** Reads the committed artifact (run `npm run contracts:build` after changing a source). */
export function loadArtifact(name: ContractName): ContractArtifact {
  const artifact = JSON.parse(readFileSync(artifactPath(name), 'utf8')) as ContractArtifact;
  if (artifact.contractName !== name || !artifact.bytecode.startsWith('0x')) {
    throw new Error(`malformed artifact ${artifactPath(name)}`);
  }
  return artifact;
}
