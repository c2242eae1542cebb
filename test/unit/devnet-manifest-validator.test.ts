import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { getAddress } from 'ethers';
import { devnetKeys } from '../../devnet/keys';
import { writeManifest, type ManifestChain } from '../../devnet/manifest';
import {
  MANIFEST_BRIDGE_KEYS,
  MANIFEST_CONTRACT_KEYS,
  expectedContractKeys,
  manifestErrors,
} from '../../devnet/manifest-validator';

/**
 * The manifest's contract keys: the base ones always, each optional venue on its own, Balancer and the bridges as
 * groups.
 */

const address = (n: number) => getAddress(`0x${n.toString(16).padStart(40, '0')}`);
const accounts = devnetKeys(0)
  .accounts.slice(0, 1)
  .map((w) => ({ address: w.address, privateKey: w.privateKey }));

/** A chain listing the given contract keys, in the given order, each at its own address. */
function chainWith(keys: readonly string[]): ManifestChain {
  return {
    chainId: 1,
    name: 'Ethereum',
    rpcUrl: 'http://127.0.0.1:8545',
    nativeSymbol: 'ETH',
    contracts: Object.fromEntries(keys.map((key, i) => [key, address(i + 1)])) as ManifestChain['contracts'],
    tokens: [{ symbol: 'WETH', address: address(1), decimals: 18 }],
    accounts,
  };
}

const without = (...absent: string[]) => MANIFEST_CONTRACT_KEYS.filter((k) => !absent.includes(k));
const errorsOf = (keys: readonly string[]) => manifestErrors({ version: 1, chains: [chainWith(keys)] });

describe('the devnet manifest’s contract keys', () => {
  it('lists the venues after Uniswap V3’s contracts and before ours, the bridges last', () => {
    expect(MANIFEST_CONTRACT_KEYS).toEqual([
      'weth',
      'multicall',
      'uniswapV2Factory',
      'uniswapV2Router02',
      'uniswapV3Factory',
      'uniswapV3QuoterV2',
      'uniswapV3SwapRouter',
      'sushiswapV2Factory',
      'uniswapV4PoolManager',
      'balancerVault',
      'balancerWeightedPoolFactory',
      'stableSwapFactory',
      'swapRouter',
      'spender',
      'orderExecutor',
      'spokePool',
      'crossChainEntry',
      'lockReleaseBridge',
      'rootBundleAdmin',
    ]);
    expect(MANIFEST_BRIDGE_KEYS).toEqual([
      'spokePool',
      'crossChainEntry',
      'lockReleaseBridge',
      'rootBundleAdmin',
    ]);
    expect(errorsOf(MANIFEST_CONTRACT_KEYS)).toEqual([]);
  });

  it.each([
    [
      'a chain without Cancun (no Uniswap V4, no bridges)',
      ['uniswapV4PoolManager', 'spokePool', 'crossChainEntry', 'lockReleaseBridge', 'rootBundleAdmin'],
    ],
    ['a fork (no StableSwap of ours)', ['stableSwapFactory']],
    [
      'a world from before the venues',
      [
        'sushiswapV2Factory',
        'uniswapV4PoolManager',
        'balancerVault',
        'balancerWeightedPoolFactory',
        'stableSwapFactory',
      ],
    ],
  ])('accepts %s', (_, absent) => {
    expect(errorsOf(without(...absent))).toEqual([]);
  });

  it('wants Balancer’s Vault and weighted pool factory together, and every key in file order', () => {
    const [vaultOnly] = errorsOf(without('balancerWeightedPoolFactory'));
    expect(vaultOnly).toContain('$.chains[0].contracts must have exactly the keys');
    expect(vaultOnly).toContain('balancerVault, balancerWeightedPoolFactory, stableSwapFactory');
    expect(errorsOf(without('balancerVault'))).toHaveLength(1);
    const swapped = [...MANIFEST_CONTRACT_KEYS];
    swapped.splice(7, 2, 'uniswapV4PoolManager', 'sushiswapV2Factory');
    expect(errorsOf(swapped)).toHaveLength(1);
    // A base key is never optional.
    expect(errorsOf(without('multicall'))).toHaveLength(1);
  });

  it('wants the four bridge contracts together: a manifest of the three bridges before the RootBundleAdmin is refused', () => {
    const [threeBridges] = errorsOf(without('rootBundleAdmin'));
    expect(threeBridges).toBe(
      `$.chains[0].contracts must have exactly the keys ${MANIFEST_CONTRACT_KEYS.join(', ')} in this order ` +
        `(has ${without('rootBundleAdmin').join(', ')})`,
    );
    for (const key of MANIFEST_BRIDGE_KEYS) expect(errorsOf(without(key))).toHaveLength(1);
    // The RootBundleAdmin alone names the whole group, as any bridge key does.
    expect(expectedContractKeys({ rootBundleAdmin: address(1) }).slice(-4)).toEqual([
      ...MANIFEST_BRIDGE_KEYS,
    ]);
    // Its address is an EIP-55 address like every other.
    const full = chainWith(MANIFEST_CONTRACT_KEYS);
    const contracts = { ...full.contracts, rootBundleAdmin: `0x${'ab'.repeat(20)}` };
    expect(manifestErrors({ version: 1, chains: [{ ...full, contracts }] })).toEqual([
      expect.stringContaining('$.chains[0].contracts.rootBundleAdmin'),
    ]);
  });

  it('names the keys a contracts object must have: the base ones and each optional group it touches', () => {
    expect(
      expectedContractKeys({ weth: address(1), balancerVault: address(2), spokePool: address(3) }),
    ).toEqual([
      ...MANIFEST_CONTRACT_KEYS.slice(0, 7),
      'balancerVault',
      'balancerWeightedPoolFactory',
      'swapRouter',
      'spender',
      'orderExecutor',
      'spokePool',
      'crossChainEntry',
      'lockReleaseBridge',
      'rootBundleAdmin',
    ]);
    // A key set to undefined does not count as listed.
    expect(expectedContractKeys({ stableSwapFactory: undefined })).not.toContain('stableSwapFactory');
  });

  describe('writeManifest', () => {
    let dir: string;
    beforeEach(() => {
      dir = mkdtempSync(path.join(tmpdir(), 'tas-manifest-keys-'));
    });
    afterEach(() => rmSync(dir, { recursive: true, force: true }));

    it('writes the venues in file order and drops contracts the manifest does not list', () => {
      const shuffled = chainWith([...without('uniswapV4PoolManager')].reverse());
      const extra = { ...shuffled.contracts, uniswapV3PositionManager: address(99) };
      const file = writeManifest(dir, { version: 1, chains: [{ ...shuffled, contracts: extra }] });
      const written = JSON.parse(readFileSync(file, 'utf8')) as { chains: ManifestChain[] };
      expect(Object.keys(written.chains[0]!.contracts)).toEqual(without('uniswapV4PoolManager'));
      expect(written.chains[0]!.contracts.stableSwapFactory).toBe(shuffled.contracts.stableSwapFactory);
    });
  });
});
