import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import type { ChainConfig } from '../shared/config/config-schema';
import { ConfigError } from '../shared/config/load-config';
import { FORK_BALANCER_FACTORY_BLOCKS } from './fork-addresses';
import { hasBridges, type DevnetManifest, type ManifestChain } from './manifest';
import { manifestErrors } from './manifest-validator';

// This module stays free of the chain engines and the world deployment: the api and the keeper run apart load it.

/** The devnet's folder in DATA_DIR: the chains' state and their token lists. */
export const DEVNET_FOLDER = 'devnet';

/** Manifest problems repeated in an error at most (the line stays readable; the first ones tell what is wrong). */
const PROBLEMS_SHOWN = 3;

/** Where the devnet writes a chain's token list, relative to the folder of its manifest (DATA_DIR). */
export function devnetTokenListPath(dataDir: string, chainId: number): string {
  return path.join(dataDir, DEVNET_FOLDER, 'tokenlists', `${chainId}.json`);
}

/**
 * The api's view of a devnet chain. `blockTimeSeconds`: the devnet's DEVNET_BLOCK_TIME when it mines on a clock
 * (the keeper then expects blocks and reports a stalled feed); absent for instant mining.
 */
export function chainConfigOf(
  entry: ManifestChain,
  tokenList: string,
  blockTimeSeconds?: number,
): ChainConfig {
  return {
    ...(blockTimeSeconds ? { blockTimeSeconds } : {}),
    // A devnet chain does not reorg on its own (tests that roll it back check what the keeper does after), and one
    // that mines only with transactions would hold a deeper batch until later transactions come.
    confirmations: 1,
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
      ...venuesOf(entry.contracts),
      swapRouter: entry.contracts.swapRouter,
      spender: entry.contracts.spender,
      orderExecutor: entry.contracts.orderExecutor,
      ...(hasBridges(entry.contracts)
        ? {
            spokePool: entry.contracts.spokePool,
            crossChainEntry: entry.contracts.crossChainEntry,
            lockReleaseBridge: entry.contracts.lockReleaseBridge,
            rootBundleAdmin: entry.contracts.rootBundleAdmin,
          }
        : {}),
    },
  };
}

/**
 * The venues the chain lists. A fork's real Balancer factory has years of PoolCreated logs before it: they are read
 * from its deployment block on.
 */
function venuesOf(contracts: ManifestChain['contracts']): Partial<ChainConfig['contracts']> {
  const fromBlock = contracts.balancerWeightedPoolFactory
    ? FORK_BALANCER_FACTORY_BLOCKS[contracts.balancerWeightedPoolFactory]
    : undefined;
  const venues = {
    sushiswapV2Factory: contracts.sushiswapV2Factory,
    uniswapV4PoolManager: contracts.uniswapV4PoolManager,
    balancerVault: contracts.balancerVault,
    balancerWeightedPoolFactory: contracts.balancerWeightedPoolFactory,
    balancerFromBlock: fromBlock,
    stableSwapFactory: contracts.stableSwapFactory,
  };
  return Object.fromEntries(Object.entries(venues).filter(([, v]) => v !== undefined));
}

/** A running devnet as a separately started api or keeper sees it through DEVNET_MANIFEST. */
export interface ManifestChains {
  /** The manifest's absolute path. */
  file: string;
  manifest: DevnetManifest;
  /** The chains to serve, token lists included, in place of CHAINS_FILE's. */
  chains: ChainConfig[];
}

/**
 * The chains of the devnet manifest named by DEVNET_MANIFEST (undefined when it is unset), so that the api and the
 * keeper can run as processes of their own beside `npm run devnet`. The token lists are the ones the devnet wrote
 * beside its manifest. Any problem is one ConfigError line naming DEVNET_MANIFEST and its value.
 */
export function manifestChainsOf(
  env: Partial<Record<string, string | undefined>>,
): ManifestChains | undefined {
  const value = env.DEVNET_MANIFEST ?? '';
  if (value.trim() === '') return undefined;
  const problem = (what: string) =>
    new ConfigError(`Invalid configuration: DEVNET_MANIFEST=${JSON.stringify(value)} ${what}`);
  // Two sources of chains would leave the operator guessing which one is served.
  if (env.CHAINS_FILE)
    throw problem(`and CHAINS_FILE=${JSON.stringify(env.CHAINS_FILE)} both name the chains: set only one`);
  const file = path.resolve(value);
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT')
      throw problem(
        'does not exist: start the devnet first (npm run devnet), it writes DATA_DIR/devnet.json',
      );
    throw problem(`cannot be read: ${(err as Error).message}`);
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (err) {
    throw problem(`is not JSON: ${(err as Error).message}`);
  }
  const errors = manifestErrors(parsed);
  if (errors.length > 0) {
    const more = errors.length > PROBLEMS_SHOWN ? ` (and ${errors.length - PROBLEMS_SHOWN} more)` : '';
    throw problem(`is not a devnet manifest: ${errors.slice(0, PROBLEMS_SHOWN).join('; ')}${more}`);
  }
  const manifest = parsed as DevnetManifest;
  const dataDir = path.dirname(file);
  const chains = manifest.chains.map((entry) => {
    const tokenList = devnetTokenListPath(dataDir, entry.chainId);
    if (!existsSync(tokenList))
      throw problem(`has no token list of chain ${entry.chainId} beside it (${tokenList})`);
    return chainConfigOf(entry, tokenList);
  });
  return { file, manifest, chains };
}
