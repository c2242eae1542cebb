import { readFileSync } from 'node:fs';
import path from 'node:path';
import { getAddress } from 'ethers';
import { FORK_BALANCER_FACTORY_BLOCKS, FORK_CONTRACTS } from '../../devnet/fork-addresses';
import {
  KNOWN_CHAINS,
  knownChain,
  VENUE_KEYS,
  type VenueKey,
} from '../../tools/contracts-deploy/known-chains';

interface ShippedChain {
  chainId: number;
  name: string;
  nativeSymbol: string;
  nativeDecimals: number;
  blockTimeSeconds: number;
  wrappedNative: string;
}

const SHIPPED: readonly ShippedChain[] = (
  JSON.parse(readFileSync(path.resolve(__dirname, '../../config/chains.json'), 'utf8')) as {
    chains: ShippedChain[];
  }
).chains;

/** The chains the spec lists as enabled. */
const SPEC_CHAIN_IDS = [1, 10, 56, 137, 8453, 42161, 43114, 59144];

const chains = Object.values(KNOWN_CHAINS);
const addresses = chains.flatMap((chain) =>
  Object.entries(chain.venues).map(([key, address]) => ({ chainId: chain.chainId, key, address })),
);

describe('the built-in table of the spec chains', () => {
  it('holds the eight chains of the spec, each under its own chain id', () => {
    expect(Object.keys(KNOWN_CHAINS).map(Number)).toEqual(SPEC_CHAIN_IDS);
    for (const [id, chain] of Object.entries(KNOWN_CHAINS)) expect(chain.chainId).toBe(Number(id));
  });

  it('writes every address checksummed', () => {
    expect(addresses.length).toBeGreaterThan(0);
    for (const { chainId, key, address } of addresses) {
      expect({ chainId, key, address }).toEqual({ chainId, key, address: getAddress(address) });
    }
  });

  it('uses only the venue keys of the manifest, and never our own StableSwap factory', () => {
    for (const { key } of addresses) expect(VENUE_KEYS).toContain(key);
    for (const chain of chains) expect(chain.venues).not.toHaveProperty('stableSwapFactory');
  });

  it.each(SHIPPED.map((chain) => [chain.chainId, chain] as const))(
    'agrees with config/chains.json on chain %i',
    (chainId, shipped) => {
      const known = knownChain(chainId);
      expect(known).toBeDefined();
      expect({
        name: known?.name,
        nativeSymbol: known?.nativeSymbol,
        nativeDecimals: known?.nativeDecimals,
        blockTimeSeconds: known?.blockTimeSeconds,
        wrappedNative: known?.venues.weth,
      }).toEqual({
        name: shipped.name,
        nativeSymbol: shipped.nativeSymbol,
        nativeDecimals: shipped.nativeDecimals,
        blockTimeSeconds: shipped.blockTimeSeconds,
        wrappedNative: shipped.wrappedNative,
      });
    },
  );

  it('covers exactly the chains config/chains.json ships', () => {
    expect(SHIPPED.map((chain) => chain.chainId).sort((a, b) => a - b)).toEqual(SPEC_CHAIN_IDS);
  });

  it('gives every chain the venues a chains file requires', () => {
    for (const chain of chains) {
      for (const key of ['weth', 'multicall', 'uniswapV2Factory', 'uniswapV3Factory'] as const)
        expect({ chainId: chain.chainId, key, present: Boolean(chain.venues[key]) }).toEqual({
          chainId: chain.chainId,
          key,
          present: true,
        });
    }
  });

  it('lists the Balancer Vault only with its weighted pool factory, and a from-block only with the factory', () => {
    for (const chain of chains) {
      const { balancerVault, balancerWeightedPoolFactory } = chain.venues;
      expect({ chainId: chain.chainId, vault: Boolean(balancerVault) }).toEqual({
        chainId: chain.chainId,
        vault: Boolean(balancerWeightedPoolFactory),
      });
      if (chain.balancerFromBlock !== undefined) {
        expect(balancerWeightedPoolFactory).toBeDefined();
        expect(Number.isSafeInteger(chain.balancerFromBlock) && chain.balancerFromBlock > 0).toBe(true);
      }
    }
  });

  it.each([1, 137])('repeats the verified fork addresses of chain %i', (chainId) => {
    const known = knownChain(chainId);
    const fork = FORK_CONTRACTS[chainId];
    expect(fork).toBeDefined();
    const shared = VENUE_KEYS.filter(
      (key): key is VenueKey & keyof NonNullable<typeof fork> => key in (fork ?? {}),
    );
    expect(shared.length).toBeGreaterThan(5);
    for (const key of shared)
      expect({ key, address: known?.venues[key] }).toEqual({ key, address: fork?.[key] });
    const factory = known?.venues.balancerWeightedPoolFactory;
    expect(known?.balancerFromBlock).toBe(factory ? FORK_BALANCER_FACTORY_BLOCKS[factory] : undefined);
  });

  it('knows no other chain', () => {
    expect(knownChain(31337)).toBeUndefined();
    expect(knownChain(0)).toBeUndefined();
  });
});
