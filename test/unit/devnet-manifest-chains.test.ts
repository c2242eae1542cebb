import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Wallet, getAddress } from 'ethers';
import { FORK_CONTRACTS } from '../../devnet/fork-addresses';
import { devnetKeys } from '../../devnet/keys';
import type { DevnetManifest, ManifestChain } from '../../devnet/manifest';
import { manifestChainsOf } from '../../devnet/manifest-chains';
import { expectedContractKeys } from '../../devnet/manifest-validator';
import { devnetExecutorKeys } from '../../devnet/manifest-executors';
import { ConfigError, loadConfig } from '../../shared/config/load-config';

/** DEVNET_MANIFEST: how an api or a keeper started apart finds the devnet's chains and executor keys. */

const address = (n: number) => getAddress(`0x${n.toString(16).padStart(40, '0')}`);
const testAccounts = devnetKeys(0).accounts.map((w) => ({ address: w.address, privateKey: w.privateKey }));

/** Chain 1 lists every venue; chain 137 none of the optional ones (the keys the validator allows to be absent). */
function chainEntry(chainId: number, rpcUrl: string): ManifestChain {
  const base = chainId * 100;
  const venues =
    chainId === 1
      ? {
          sushiswapV2Factory: address(base + 14),
          uniswapV4PoolManager: address(base + 15),
          balancerVault: address(base + 16),
          balancerWeightedPoolFactory: address(base + 17),
          stableSwapFactory: address(base + 18),
        }
      : {};
  return {
    chainId,
    name: `Chain ${chainId}`,
    rpcUrl,
    nativeSymbol: chainId === 137 ? 'POL' : 'ETH',
    contracts: {
      weth: address(base + 1),
      multicall: address(base + 2),
      uniswapV2Factory: address(base + 3),
      uniswapV2Router02: address(base + 4),
      uniswapV3Factory: address(base + 5),
      uniswapV3QuoterV2: address(base + 6),
      uniswapV3SwapRouter: address(base + 7),
      ...venues,
      swapRouter: address(base + 8),
      spender: address(base + 9),
      orderExecutor: address(base + 10),
      spokePool: address(base + 11),
      crossChainEntry: address(base + 12),
      lockReleaseBridge: address(base + 13),
      rootBundleAdmin: address(base + 19),
    },
    tokens: [{ symbol: 'WETH', address: address(base + 1), decimals: 18 }],
    accounts: testAccounts,
  };
}

describe('DEVNET_MANIFEST', () => {
  let dir: string;
  let file: string;
  const manifest: DevnetManifest = {
    version: 1,
    chains: [chainEntry(1, 'http://127.0.0.1:8545'), chainEntry(137, 'http://127.0.0.1:8546')],
  };

  const write = (name: string, content: unknown): string => {
    const target = path.join(dir, name);
    mkdirSync(path.dirname(target), { recursive: true });
    writeFileSync(target, typeof content === 'string' ? content : JSON.stringify(content));
    return target;
  };
  const problem = (env: Record<string, string>): string => {
    try {
      manifestChainsOf(env);
    } catch (err) {
      expect(err).toBeInstanceOf(ConfigError);
      return (err as Error).message;
    }
    throw new Error('the manifest was accepted');
  };

  beforeEach(() => {
    dir = mkdtempSync(path.join(tmpdir(), 'tas-manifest-'));
    file = write('devnet.json', manifest);
    write('devnet/tokenlists/1.json', { tokens: [] });
    write('devnet/tokenlists/137.json', { tokens: [] });
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('is off when unset or blank: the chains come from CHAINS_FILE', () => {
    expect(manifestChainsOf({})).toBeUndefined();
    expect(manifestChainsOf({ DEVNET_MANIFEST: ' ' })).toBeUndefined();
  });

  it('maps every manifest chain to the chain config the api and the keeper serve, with the devnet token lists', () => {
    const relative = path.relative(process.cwd(), file);
    const found = manifestChainsOf({ DEVNET_MANIFEST: relative })!;
    expect(found.file).toBe(file);
    expect(found.manifest).toEqual(manifest);
    expect(found.chains).toEqual([
      {
        chainId: 1,
        confirmations: 1,
        name: 'Chain 1',
        rpcUrls: ['http://127.0.0.1:8545'],
        nativeSymbol: 'ETH',
        nativeDecimals: 18,
        wrappedNative: address(101),
        crossChainSource: true,
        tokenList: path.join(dir, 'devnet', 'tokenlists', '1.json'),
        contracts: {
          multicall: address(102),
          uniswapV2Factory: address(103),
          uniswapV3Factory: address(105),
          sushiswapV2Factory: address(114),
          uniswapV4PoolManager: address(115),
          balancerVault: address(116),
          balancerWeightedPoolFactory: address(117),
          stableSwapFactory: address(118),
          swapRouter: address(108),
          spender: address(109),
          orderExecutor: address(110),
          spokePool: address(111),
          crossChainEntry: address(112),
          lockReleaseBridge: address(113),
          rootBundleAdmin: address(119),
        },
      },
      expect.objectContaining({
        chainId: 137,
        nativeSymbol: 'POL',
        wrappedNative: address(13_701),
        tokenList: path.join(dir, 'devnet', 'tokenlists', '137.json'),
      }),
    ]);
    // A chain without the optional venues has none of their keys (each absent venue is simply not quoted).
    expect(Object.keys(found.chains[1]!.contracts ?? {})).toEqual([
      'multicall',
      'uniswapV2Factory',
      'uniswapV3Factory',
      'swapRouter',
      'spender',
      'orderExecutor',
      'spokePool',
      'crossChainEntry',
      'lockReleaseBridge',
      'rootBundleAdmin',
    ]);
    // The mapped chains pass the service's configuration checks as they are.
    const config = loadConfig({ DEVNET_MANIFEST: file }, { chains: found.chains });
    expect(config.chains.map((c) => c.chainId)).toEqual([1, 137]);
  });

  it("reads a fork's real Balancer pools from their factory's deployment block, a devnet's from block 0", () => {
    const polygon = chainEntry(137, 'http://127.0.0.1:8546');
    const contracts = {
      ...polygon.contracts,
      balancerVault: FORK_CONTRACTS[137]!.balancerVault!,
      balancerWeightedPoolFactory: FORK_CONTRACTS[137]!.balancerWeightedPoolFactory!,
    };
    // In the manifest's key order.
    const ordered = Object.fromEntries(expectedContractKeys(contracts).map((k) => [k, contracts[k]]));
    const forkOfPolygon = { ...polygon, contracts: ordered };
    const forkFile = write('devnet.json', { version: 1, chains: [manifest.chains[0], forkOfPolygon] });
    const [devnetChain, forkChain] = manifestChainsOf({ DEVNET_MANIFEST: forkFile })!.chains;
    expect(devnetChain!.contracts?.balancerFromBlock).toBeUndefined();
    expect(forkChain!.contracts).toMatchObject({
      balancerVault: '0xBA12222222228d8Ba445958a75a0704d566BF2C8',
      balancerWeightedPoolFactory: '0xFc8a407Bba312ac761D8BFe04CE1201904842B76',
      balancerFromBlock: 40_611_103,
    });
  });

  it('names DEVNET_MANIFEST and its value in one line for a missing, unreadable or foreign file', () => {
    expect(problem({ DEVNET_MANIFEST: 'no/such/devnet.json' })).toBe(
      'Invalid configuration: DEVNET_MANIFEST="no/such/devnet.json" does not exist: start the devnet first ' +
        '(npm run devnet), it writes DATA_DIR/devnet.json',
    );
    expect(problem({ DEVNET_MANIFEST: dir })).toMatch(
      /^Invalid configuration: DEVNET_MANIFEST="[^"]+" cannot be read: EISDIR/,
    );
    const notJson = write('broken.json', '{"version":1,');
    expect(problem({ DEVNET_MANIFEST: notJson })).toMatch(
      new RegExp(`^Invalid configuration: DEVNET_MANIFEST="${notJson}" is not JSON: `),
    );
    const chainsFile = write('chains.json', { chains: [] });
    expect(problem({ DEVNET_MANIFEST: chainsFile })).toBe(
      `Invalid configuration: DEVNET_MANIFEST="${chainsFile}" is not a devnet manifest: $ must have exactly the ` +
        'keys version, chains in this order (has chains)',
    );
    for (const message of [notJson, chainsFile].map((f) => problem({ DEVNET_MANIFEST: f })))
      expect(message).not.toContain('\n');
  });

  it('shows the first three problems of an invalid manifest and counts the rest', () => {
    const bad = {
      version: 1,
      chains: [
        { ...chainEntry(1, 'ftp://x'), name: '', nativeSymbol: '' },
        { ...chainEntry(1, 'http://127.0.0.1:1') },
      ],
    };
    expect(problem({ DEVNET_MANIFEST: write('bad.json', bad) })).toBe(
      `Invalid configuration: DEVNET_MANIFEST="${path.join(dir, 'bad.json')}" is not a devnet manifest: ` +
        '$.chains[0].name must be a non-empty string; $.chains[0].nativeSymbol must be a non-empty string; ' +
        '$.chains[0].rpcUrl must be an http(s) or ws(s) URL (and 1 more)',
    );
  });

  it('needs the token list the devnet writes beside its manifest', () => {
    rmSync(path.join(dir, 'devnet', 'tokenlists', '137.json'));
    expect(problem({ DEVNET_MANIFEST: file })).toBe(
      `Invalid configuration: DEVNET_MANIFEST="${file}" has no token list of chain 137 beside it ` +
        `(${path.join(dir, 'devnet', 'tokenlists', '137.json')})`,
    );
  });

  it('refuses a CHAINS_FILE beside it: one source of chains', () => {
    expect(problem({ DEVNET_MANIFEST: file, CHAINS_FILE: 'config/chains.json' })).toBe(
      `Invalid configuration: DEVNET_MANIFEST="${file}" and CHAINS_FILE="config/chains.json" both name the ` +
        'chains: set only one',
    );
  });

  describe("the devnet's executor keys", () => {
    it('are the devnet executors, DEVNET_EXECUTORS of them (2 by default)', () => {
      const devnet = manifestChainsOf({ DEVNET_MANIFEST: file })!;
      const executors = devnetKeys(4).executors;
      expect(devnetExecutorKeys(devnet, { DEVNET_MANIFEST: file })).toEqual(
        executors.slice(0, 2).map((w) => w.privateKey),
      );
      expect(devnetExecutorKeys(devnet, { DEVNET_MANIFEST: file, DEVNET_EXECUTORS: '4' })).toEqual(
        executors.map((w) => w.privateKey),
      );
      expect(() => devnetExecutorKeys(devnet, { DEVNET_MANIFEST: file, DEVNET_EXECUTORS: 'many' })).toThrow(
        ConfigError,
      );
    });

    it("are refused for a manifest whose accounts are not the test mnemonic's (its chains may be real)", () => {
      const stranger = Wallet.createRandom();
      const foreign: DevnetManifest = {
        version: 1,
        chains: [
          manifest.chains[0]!,
          {
            ...manifest.chains[1]!,
            accounts: [{ address: stranger.address, privateKey: stranger.privateKey }],
          },
        ],
      };
      const foreignFile = write('devnet.json', foreign);
      const devnet = manifestChainsOf({ DEVNET_MANIFEST: foreignFile })!;
      expect(() => devnetExecutorKeys(devnet, { DEVNET_MANIFEST: foreignFile })).toThrow(
        new ConfigError(
          `Invalid configuration: DEVNET_MANIFEST="${foreignFile}" does not list the devnet's test accounts on ` +
            'chain 137, so its chains may not be local: set EXECUTOR_PRIVATE_KEYS or EXECUTOR_KEYSTORE_FILES',
        ),
      );
    });
  });
});
