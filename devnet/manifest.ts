import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { getAddress } from 'ethers';
import {
  MANIFEST_BASE_CONTRACT_KEYS,
  MANIFEST_BRIDGE_KEYS,
  MANIFEST_CONTRACT_KEYS,
  MANIFEST_VENUE_KEYS,
  expectedContractKeys,
  manifestErrors,
} from './manifest-validator';
import type { DeployedWorld } from './world/deploy-world';

/** The file the api, the keeper, the tests and users read: DATA_DIR/devnet.json. */
export const MANIFEST_FILE = 'devnet.json';

/**
 * The contracts' addresses a manifest chain lists: exactly the keys its validator requires; each venue the chain
 * has (Uniswap V4 needs Cancun; Balancer's Vault and weighted pool factory together), the bridges' three together
 * or not at all (no bridges on an engine without Cancun).
 */
export type ManifestContracts = Record<(typeof MANIFEST_BASE_CONTRACT_KEYS)[number], string> &
  Partial<Record<(typeof MANIFEST_VENUE_KEYS)[number] | (typeof MANIFEST_BRIDGE_KEYS)[number], string>>;

export interface ManifestToken {
  symbol: string;
  address: string;
  decimals: number;
}

/** A devnet-only test wallet (its key is public: derived from the well-known test mnemonic). */
export interface ManifestAccount {
  address: string;
  privateKey: string;
}

export interface ManifestChain {
  chainId: number;
  name: string;
  rpcUrl: string;
  nativeSymbol: string;
  contracts: ManifestContracts;
  tokens: ManifestToken[];
  accounts: ManifestAccount[];
}

export interface DevnetManifest {
  version: 1;
  chains: ManifestChain[];
}

/** The manifest's contract keys in file order (owned by the validator, which checks the order). */
export const CONTRACT_KEYS = MANIFEST_CONTRACT_KEYS satisfies ReadonlyArray<keyof ManifestContracts>;

/** Whether the chain has the bridges (then all three addresses). */
export function hasBridges(
  contracts: ManifestContracts,
): contracts is ManifestContracts & Required<Pick<ManifestContracts, (typeof MANIFEST_BRIDGE_KEYS)[number]>> {
  return MANIFEST_BRIDGE_KEYS.every((key) => contracts[key] !== undefined);
}

export function buildManifestChain(
  world: DeployedWorld,
  rpcUrl: string,
  name: string,
  nativeSymbol: string,
  accounts: ReadonlyArray<{ address: string; privateKey: string }>,
): ManifestChain {
  return normalizeChain({
    chainId: world.chainId,
    name,
    rpcUrl,
    nativeSymbol,
    contracts: world.contracts,
    tokens: world.tokens,
    accounts: accounts.map((a) => ({ address: a.address, privateKey: a.privateKey })),
  });
}

/** Writes DATA_DIR/devnet.json atomically (readers never see a half-written file); refuses an invalid manifest. */
export function writeManifest(dataDir: string, manifest: DevnetManifest): string {
  const normalized: DevnetManifest = { version: 1, chains: manifest.chains.map(normalizeChain) };
  const errors = manifestErrors(normalized);
  if (errors.length > 0)
    throw new Error(`refusing to write an invalid devnet manifest: ${errors.join('; ')}`);
  mkdirSync(dataDir, { recursive: true });
  const file = join(dataDir, MANIFEST_FILE);
  const tmp = `${file}.${process.pid}.tmp`;
  writeFileSync(tmp, `${JSON.stringify(normalized, null, 2)}\n`);
  renameSync(tmp, file);
  return file;
}

/** Reads and validates DATA_DIR/devnet.json. */
export function readManifest(dataDir: string): DevnetManifest {
  const file = join(dataDir, MANIFEST_FILE);
  const value: unknown = JSON.parse(readFileSync(file, 'utf8'));
  const errors = manifestErrors(value);
  if (errors.length > 0) throw new Error(`${file} is not a valid devnet manifest: ${errors.join('; ')}`);
  return value as DevnetManifest;
}

/** Rebuilds a chain entry in the manifest's key order with EIP-55 addresses (extra fields are dropped). */
function normalizeChain(chain: ManifestChain): ManifestChain {
  const keys = expectedContractKeys(chain.contracts);
  const contracts = Object.fromEntries(
    keys.map((key) => [key, getAddress(chain.contracts[key]!)]),
  ) as unknown as ManifestContracts;
  return {
    chainId: chain.chainId,
    name: chain.name,
    rpcUrl: chain.rpcUrl,
    nativeSymbol: chain.nativeSymbol,
    contracts,
    tokens: chain.tokens.map((t) => ({
      symbol: t.symbol,
      address: getAddress(t.address),
      decimals: t.decimals,
    })),
    accounts: chain.accounts.map((a) => ({ address: getAddress(a.address), privateKey: a.privateKey })),
  };
}
