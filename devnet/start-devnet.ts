import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { Contract, ZeroAddress } from 'ethers';
import { loadArtifact } from '../contracts-abi/artifacts';
import { orderExecutorInterface } from '../shared/chain/contract-interfaces';
import type { ChainConfig } from '../shared/config/config-schema';
import type { Logger } from '../shared/log/create-logger';
import type { DevnetConfig } from './devnet-config';
import { deployForked, knownForkWorld } from './fork/deploy-forked';
import { devnetKeys, type DevnetKeys } from './keys';
import {
  MANIFEST_FILE,
  buildManifestChain,
  hasBridges,
  readManifest,
  writeManifest,
  type DevnetManifest,
  type ManifestChain,
} from './manifest';
import { DEVNET_FOLDER, chainConfigOf, devnetTokenListPath } from './manifest-chains';
import { MANIFEST_VENUE_KEYS } from './manifest-validator';
import { startChain, type ChainHandle } from './start-chain';
import { mined } from './wait-for-receipt';
import { GENESIS_BALANCE_WEI } from './engine/genesis';
import { addBridgesToWorld, supportsBridges } from './world/deploy-bridges';
import { deployWorld } from './world/deploy-world';
import { tokenListOf } from './world/token-list';
import { worldSpec } from './world/world-spec';

export { DEVNET_FOLDER };

const CHAIN_NAMES: Readonly<Record<number, string>> = {
  1: 'Ethereum',
  10: 'OP Mainnet',
  56: 'BNB Smart Chain',
  137: 'Polygon',
  8453: 'Base',
  42161: 'Arbitrum One',
  43114: 'Avalanche C-Chain',
  59144: 'Linea',
};

export interface RunningDevnet {
  manifest: DevnetManifest;
  /** The api's chain configuration for the devnet chains. */
  chains: ChainConfig[];
  handles: ChainHandle[];
  /** Whether each chain's world was deployed now (false: found from an earlier start). */
  deployed: boolean[];
  stop(): Promise<void>;
}

export function chainDbPath(dataDir: string, chainId: number): string {
  return path.join(dataDir, DEVNET_FOLDER, `chain-${chainId}`);
}

async function hasCode(handle: ChainHandle, address: string): Promise<boolean> {
  return (await handle.provider.getCode(address)) !== '0x';
}

/**
 * Whether the code at `address` is this build of our contract: the same length as its artifact's runtime code
 * (immutables change bytes, never the length). A world saved by an older build (an OrderExecutor with another
 * ABI) is deployed anew rather than served to a keeper that would encode calls it does not know.
 */
async function isCurrentBuild(
  handle: ChainHandle,
  address: string,
  name: 'OrderExecutor' | 'SwapRouter' | 'LockReleaseBridge' | 'CrossChainEntry',
) {
  const code = await handle.provider.getCode(address);
  return code !== '0x' && code.length === loadArtifact(name).deployedBytecode.length;
}

/** Our SwapRouter's getters of the venues it was built with (PathExecutor's immutables). */
const ROUTER_VENUES_ABI = MANIFEST_VENUE_KEYS.map((key) => `function ${key}() view returns (address)`);

/**
 * The venues the world's SwapRouter routes through (ZeroAddress ones left out), or undefined for a SwapRouter
 * built before the venues existed: such a world cannot route through them and is deployed anew.
 */
async function routerVenues(
  handle: ChainHandle,
  swapRouter: string,
): Promise<Partial<ManifestChain['contracts']> | undefined> {
  const router = new Contract(swapRouter, ROUTER_VENUES_ABI, handle.provider);
  const reads = await Promise.allSettled(
    MANIFEST_VENUE_KEYS.map((key) => router.getFunction(key)() as Promise<string>),
  );
  if (reads.some((r) => r.status === 'rejected')) return undefined;
  const addresses = reads.map((r) => (r as PromiseFulfilledResult<string>).value);
  return Object.fromEntries(
    MANIFEST_VENUE_KEYS.map((key, i) => [key, addresses[i]!] as const).filter(([, a]) => a !== ZeroAddress),
  );
}

/**
 * The previous start's entry for this chain, if the chain still holds its contracts (same persisted state) and its
 * SwapRouter knows the venues; their addresses are taken from it (a manifest written before them lacks them).
 */
async function reusable(
  handle: ChainHandle,
  previous: ManifestChain | undefined,
): Promise<ManifestChain | undefined> {
  if (!previous) return undefined;
  const { weth, swapRouter, orderExecutor, lockReleaseBridge, crossChainEntry } = previous.contracts;
  const alive = await Promise.all([
    hasCode(handle, weth),
    isCurrentBuild(handle, swapRouter, 'SwapRouter'),
    isCurrentBuild(handle, orderExecutor, 'OrderExecutor'),
    !lockReleaseBridge || isCurrentBuild(handle, lockReleaseBridge, 'LockReleaseBridge'),
    !crossChainEntry || isCurrentBuild(handle, crossChainEntry, 'CrossChainEntry'),
  ]);
  if (!alive.every(Boolean)) return undefined;
  const venues = await routerVenues(handle, swapRouter);
  if (!venues) return undefined;
  return { ...previous, rpcUrl: handle.rpcUrl, contracts: { ...previous.contracts, ...venues } };
}

/** A larger executor pool than the one deployed: register the new wallets (the deployer owns the contract). */
async function registerExecutors(handle: ChainHandle, entry: ManifestChain, keys: DevnetKeys): Promise<void> {
  const executor = new Contract(
    entry.contracts.orderExecutor,
    orderExecutorInterface(),
    keys.deployer.connect(handle.provider),
  );
  for (const wallet of keys.executors) {
    if (!(await executor.isExecutor(wallet.address)))
      await mined(executor.setExecutor(wallet.address, true), `registering executor ${wallet.address}`);
  }
}

/**
 * A world saved by a version without the bridges gets them on an engine that runs them. Its chain was funded at
 * genesis before the relayer and the bridge admin existed: they get the genesis balance first.
 */
async function withBridges(
  handle: ChainHandle,
  entry: ManifestChain,
  keys: DevnetKeys,
): Promise<ManifestChain> {
  if (hasBridges(entry.contracts) || !(await supportsBridges(handle.provider))) return entry;
  for (const wallet of [keys.relayer, keys.bridgeAdmin]) {
    if ((await handle.provider.getBalance(wallet.address)) === 0n)
      await handle.setBalance(wallet.address, GENESIS_BALANCE_WEI);
  }
  const addressOf = (symbol: string): string => {
    const token = entry.tokens.find((t) => t.symbol === symbol);
    if (!token) throw new Error(`token ${symbol} is not in the manifest of chain ${entry.chainId}`);
    return token.address;
  };
  const bridges = await addBridgesToWorld({
    provider: handle.provider,
    mining: handle,
    spec: worldSpec(handle.chainId),
    addressOf,
    deployer: keys.deployer,
    relayer: keys.relayer,
    bridgeAdmin: keys.bridgeAdmin,
    weth: entry.contracts.weth,
    protocolFeeRecipient: keys.protocolFeeRecipient,
  });
  return { ...entry, contracts: { ...entry.contracts, ...bridges } };
}

async function deployFresh(handle: ChainHandle, keys: DevnetKeys): Promise<ManifestChain> {
  // A world deployed over an older one spent the genesis coins of the deployer and the bridge wallets once already.
  for (const wallet of [keys.deployer, keys.relayer, keys.bridgeAdmin]) {
    if ((await handle.provider.getBalance(wallet.address)) < GENESIS_BALANCE_WEI)
      await handle.setBalance(wallet.address, GENESIS_BALANCE_WEI);
  }
  const world = await deployWorld({
    provider: handle.provider,
    mining: handle,
    chainId: handle.chainId,
    deployer: keys.deployer,
    executors: keys.executors.map((w) => w.address),
    fund: [...keys.accounts, keys.mover].map((w) => w.address),
  });
  return buildManifestChain(
    world,
    handle.rpcUrl,
    CHAIN_NAMES[handle.chainId] ?? `Chain ${handle.chainId}`,
    worldSpec(handle.chainId).nativeSymbol,
    keys.accounts,
  );
}

function writeTokenList(dataDir: string, entry: ManifestChain): string {
  const file = devnetTokenListPath(dataDir, entry.chainId);
  mkdirSync(path.dirname(file), { recursive: true });
  writeFileSync(file, `${JSON.stringify(tokenListOf(entry, entry.name), null, 2)}\n`);
  return file;
}

/** One line per step of a chain's start, for the terminal of `npm start` (never logged as JSON only). */
export type DevnetProgress = (line: string) => void;

function chainLabel(chainId: number): string {
  return `chain ${chainId} (${CHAIN_NAMES[chainId] ?? `Chain ${chainId}`})`;
}

/**
 * The manifest an earlier start wrote, when it is one this build reads; one written by an older build (another set
 * of contracts) is left behind and its chains' worlds deployed anew over their saved state.
 */
function previousManifest(dataDir: string, log: Logger): DevnetManifest | undefined {
  if (!existsSync(path.join(dataDir, MANIFEST_FILE))) return undefined;
  try {
    return readManifest(dataDir);
  } catch (err) {
    log.warn({ err }, 'the saved devnet manifest is from another build: deploying the worlds anew');
    return undefined;
  }
}

/**
 * Starts the configured chains side by side (state persisted in DATA_DIR/devnet), deploys each chain's world on
 * its first start and reuses it afterwards, and writes DATA_DIR/devnet.json and the chains' token lists.
 */
export async function startDevnet(
  config: DevnetConfig,
  log: Logger,
  progress: DevnetProgress = () => undefined,
): Promise<RunningDevnet> {
  const keys = devnetKeys(config.executorCount);
  const previous = previousManifest(config.dataDir, log);
  const handles: ChainHandle[] = [];
  const stop = async (): Promise<void> => {
    await Promise.all(handles.map((h) => h.stop()));
  };
  const fork = config.forkUrl
    ? {
        url: config.forkUrl,
        ...(config.forkBlockNumber === null ? {} : { blockNumber: config.forkBlockNumber }),
      }
    : undefined;
  const startOne = async (
    chainId: number,
    i: number,
  ): Promise<{ entry: ManifestChain; deployed: boolean }> => {
    const started = Date.now();
    const handle = await startChain({
      chainId,
      engine: config.engine,
      port: config.ports[i],
      dbPath: chainDbPath(config.dataDir, chainId),
      blockTime: config.blockTime,
      fork,
      onStranded: (rescue) =>
        log.warn({ chainId, ...rescue }, 'devnet: a transaction anvil stranded was re-imported'),
    });
    handles.push(handle);
    const found = await reusable(
      handle,
      previous?.chains.find((c) => c.chainId === chainId),
    );
    if (found) {
      await registerExecutors(handle, found, keys);
      // Forked worlds are not upgraded: their tokens are the fork's, not the fixture world's.
      const entry = fork ? found : await withBridges(handle, found, keys);
      progress(`devnet: ${chainLabel(chainId)} at ${handle.rpcUrl} on ${handle.engine}: world reused`);
      return { entry, deployed: false };
    }
    progress(`devnet: ${chainLabel(chainId)} at ${handle.rpcUrl} on ${handle.engine}: deploying the world`);
    const entry = fork
      ? await deployForked({
          chain: handle,
          keys,
          world: knownForkWorld(chainId),
          name: CHAIN_NAMES[chainId] ?? `Chain ${chainId}`,
        })
      : await deployFresh(handle, keys);
    const seconds = ((Date.now() - started) / 1000).toFixed(1);
    log.info({ chainId, ms: Date.now() - started }, 'devnet world deployed');
    progress(`devnet: ${chainLabel(chainId)}: world deployed in ${seconds} s`);
    return { entry, deployed: true };
  };
  try {
    const results = await Promise.allSettled(config.chainIds.map((chainId, i) => startOne(chainId, i)));
    const failed = results.find((r): r is PromiseRejectedResult => r.status === 'rejected');
    if (failed) throw failed.reason;
    const done = results.map(
      (r) => (r as PromiseFulfilledResult<{ entry: ManifestChain; deployed: boolean }>).value,
    );
    const entries = done.map((d) => d.entry);
    const manifest: DevnetManifest = { version: 1, chains: entries };
    writeManifest(config.dataDir, manifest);
    const chains = entries.map((entry) =>
      chainConfigOf(entry, writeTokenList(config.dataDir, entry), config.blockTime),
    );
    // Handles in the order of the configured chains, as callers index them.
    handles.sort((a, b) => config.chainIds.indexOf(a.chainId) - config.chainIds.indexOf(b.chainId));
    return { manifest, chains, handles, deployed: done.map((d) => d.deployed), stop };
  } catch (err) {
    await stop();
    throw err;
  }
}
