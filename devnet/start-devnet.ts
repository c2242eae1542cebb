import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { Contract } from 'ethers';
import { loadArtifact } from '../contracts-abi/artifacts';
import type { ChainConfig } from '../shared/config/config-schema';
import type { Logger } from '../shared/log/create-logger';
import type { DevnetConfig } from './devnet-config';
import { FORK_CONTRACTS } from './fork-addresses';
import { devnetKeys, type DevnetKeys } from './keys';
import {
  MANIFEST_FILE,
  buildManifestChain,
  readManifest,
  writeManifest,
  type DevnetManifest,
  type ManifestChain,
} from './manifest';
import { startChain, type ChainHandle } from './start-chain';
import { deployServiceContracts } from './world/deploy-service-contracts';
import { deployWorld } from './world/deploy-world';
import { tokenListOf } from './world/token-list';
import { worldSpec } from './world/world-spec';

export const DEVNET_FOLDER = 'devnet';

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

function tokenListPath(dataDir: string, chainId: number): string {
  return path.join(dataDir, DEVNET_FOLDER, 'tokenlists', `${chainId}.json`);
}

async function hasCode(handle: ChainHandle, address: string): Promise<boolean> {
  return (await handle.provider.getCode(address)) !== '0x';
}

/** The previous start's entry for this chain, if the chain still holds its contracts (same persisted state). */
async function reusable(
  handle: ChainHandle,
  previous: ManifestChain | undefined,
): Promise<ManifestChain | undefined> {
  if (!previous) return undefined;
  const { weth, swapRouter, orderExecutor } = previous.contracts;
  const alive = await Promise.all([weth, swapRouter, orderExecutor].map((a) => hasCode(handle, a)));
  return alive.every(Boolean) ? { ...previous, rpcUrl: handle.rpcUrl } : undefined;
}

/** A larger executor pool than the one deployed: register the new wallets (the deployer owns the contract). */
async function registerExecutors(handle: ChainHandle, entry: ManifestChain, keys: DevnetKeys): Promise<void> {
  const executor = new Contract(
    entry.contracts.orderExecutor,
    loadArtifact('OrderExecutor').abi,
    keys.deployer.connect(handle.provider),
  );
  for (const wallet of keys.executors) {
    if (!(await executor.isExecutor(wallet.address)))
      await (await executor.setExecutor(wallet.address, true)).wait();
  }
}

async function deployForked(handle: ChainHandle, keys: DevnetKeys): Promise<ManifestChain> {
  const known = FORK_CONTRACTS[handle.chainId];
  if (!known)
    throw new Error(`Forked mode knows the contracts of chains 1 and 137 only, not ${handle.chainId}`);
  const ours = await deployServiceContracts({
    provider: handle.provider,
    deployer: keys.deployer.connect(handle.provider),
    weth: known.weth,
    v2Factory: known.uniswapV2Factory,
    v3Factory: known.uniswapV3Factory,
    feeCollector: keys.feeCollector,
    protocolFeeRecipient: keys.protocolFeeRecipient,
    executors: keys.executors.map((w) => w.address),
  });
  const spec = worldSpec(handle.chainId);
  return {
    chainId: handle.chainId,
    name: CHAIN_NAMES[handle.chainId] ?? `Chain ${handle.chainId}`,
    rpcUrl: handle.rpcUrl,
    nativeSymbol: spec.nativeSymbol,
    contracts: { ...known, ...ours },
    tokens: [{ symbol: spec.wrapped.symbol, address: known.weth, decimals: 18 }],
    accounts: keys.accounts.map((a) => ({ address: a.address, privateKey: a.privateKey })),
  };
}

async function deployFresh(handle: ChainHandle, keys: DevnetKeys): Promise<ManifestChain> {
  const world = await deployWorld({
    provider: handle.provider,
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
  const file = tokenListPath(dataDir, entry.chainId);
  mkdirSync(path.dirname(file), { recursive: true });
  writeFileSync(file, `${JSON.stringify(tokenListOf(entry, entry.name), null, 2)}\n`);
  return file;
}

/** The api's view of a devnet chain. */
export function chainConfigOf(entry: ManifestChain, tokenList: string): ChainConfig {
  return {
    chainId: entry.chainId,
    name: entry.name,
    rpcUrls: [entry.rpcUrl],
    nativeSymbol: entry.nativeSymbol,
    nativeDecimals: 18,
    wrappedNative: entry.contracts.weth,
    crossChainSource: true,
    tokenList,
    contracts: {
      multicall: entry.contracts.multicall,
      uniswapV2Factory: entry.contracts.uniswapV2Factory,
      uniswapV3Factory: entry.contracts.uniswapV3Factory,
      swapRouter: entry.contracts.swapRouter,
      spender: entry.contracts.spender,
      orderExecutor: entry.contracts.orderExecutor,
    },
  };
}

/**
 * Starts the configured chains (state persisted in DATA_DIR/devnet), deploys each chain's world on its first
 * start and reuses it afterwards, and writes DATA_DIR/devnet.json and the chains' token lists.
 */
export async function startDevnet(config: DevnetConfig, log: Logger): Promise<RunningDevnet> {
  const keys = devnetKeys(config.executorCount);
  const previous = existsSync(path.join(config.dataDir, MANIFEST_FILE))
    ? readManifest(config.dataDir)
    : undefined;
  const handles: ChainHandle[] = [];
  const stop = async (): Promise<void> => {
    await Promise.all(handles.map((h) => h.stop()));
  };
  try {
    for (const [i, chainId] of config.chainIds.entries()) {
      handles.push(
        await startChain({
          chainId,
          port: config.ports[i],
          dbPath: chainDbPath(config.dataDir, chainId),
          blockTime: config.blockTime,
          fork: config.forkUrl
            ? {
                url: config.forkUrl,
                ...(config.forkBlockNumber === null ? {} : { blockNumber: config.forkBlockNumber }),
              }
            : undefined,
        }),
      );
    }
    const deployed: boolean[] = [];
    const entries = await Promise.all(
      handles.map(async (handle, i) => {
        const found = await reusable(
          handle,
          previous?.chains.find((c) => c.chainId === handle.chainId),
        );
        deployed[i] = !found;
        const started = Date.now();
        const entry =
          found ?? (config.forkUrl ? await deployForked(handle, keys) : await deployFresh(handle, keys));
        if (found) await registerExecutors(handle, entry, keys);
        else log.info({ chainId: handle.chainId, ms: Date.now() - started }, 'devnet world deployed');
        return entry;
      }),
    );
    const manifest: DevnetManifest = { version: 1, chains: entries };
    writeManifest(config.dataDir, manifest);
    const chains = entries.map((entry) => chainConfigOf(entry, writeTokenList(config.dataDir, entry)));
    return { manifest, chains, handles, deployed, stop };
  } catch (err) {
    await stop();
    throw err;
  }
}
