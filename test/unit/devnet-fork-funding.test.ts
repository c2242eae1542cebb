import { AbiCoder, getAddress, keccak256 } from 'ethers';
import {
  MAX_PROBED_SLOT,
  OZ5_ERC20_BALANCES_SLOT,
  balanceMappingCandidates,
  balanceSlotOf,
  findBalanceMapping,
  type BalanceMapping,
  type StorageProbe,
} from '../../devnet/fork/balance-slot';
import { forkFunding, knownForkWorld } from '../../devnet/fork/deploy-forked';
import { FORK_CONTRACTS } from '../../devnet/fork-addresses';
import { MANIFEST_BRIDGE_KEYS, manifestErrors } from '../../devnet/manifest-validator';
import { fundAmount, tokenSpec, worldSpec } from '../../devnet/world/world-spec';

const TOKEN = '0x00000000000000000000000000000000000000Aa';
const HOLDER = '0x1111111111111111111111111111111111111111';
const coder = AbiCoder.defaultAbiCoder();

/**
 * A token on a fake chain: raw storage, and a balanceOf that reads the holder's entry of one mapping (or
 * computes the balance some other way). Counts the writes so a test sees every probe restored.
 */
function fakeToken(balanceOf: (storage: Map<bigint, bigint>, holder: string) => bigint) {
  const storage = new Map<bigint, bigint>();
  const probe: StorageProbe = {
    read: async (address, slot) => {
      expect(address).toBe(TOKEN);
      return storage.get(slot) ?? 0n;
    },
    write: async (address, slot, value) => {
      expect(address).toBe(TOKEN);
      if (value === 0n) storage.delete(slot);
      else storage.set(slot, value);
    },
    balanceOf: async (token, holder) => {
      expect(token).toBe(TOKEN);
      return balanceOf(storage, holder);
    },
  };
  return { storage, probe };
}

const mappingToken = (mapping: BalanceMapping) =>
  fakeToken((storage, holder) => storage.get(balanceSlotOf(mapping, holder)) ?? 0n);

describe('balance mapping candidates', () => {
  it('probe every slot from 0 in both layouts, then OpenZeppelin 5’s ERC-7201 namespace', () => {
    const candidates = balanceMappingCandidates();
    expect(candidates.slice(0, 4)).toEqual([
      { layout: 'solidity', slot: 0n },
      { layout: 'vyper', slot: 0n },
      { layout: 'solidity', slot: 1n },
      { layout: 'vyper', slot: 1n },
    ]);
    expect(candidates).toHaveLength(2 * (Number(MAX_PROBED_SLOT) + 1) + 1);
    // USDC keeps its balances at slot 9, OpenZeppelin 4's upgradeable ERC20 at 51.
    expect(candidates).toContainEqual({ layout: 'solidity', slot: 51n });
    // The constant OpenZeppelin's ERC20Upgradeable 5 declares as ERC20StorageLocation.
    expect(OZ5_ERC20_BALANCES_SLOT).toBe(0x52c63247e1f47db19d5ce0460030c497f067ca4cebf71ba98eeadabe20bace00n);
    expect(candidates.at(-1)).toEqual({ layout: 'solidity', slot: OZ5_ERC20_BALANCES_SLOT });
  });

  it('hash (holder, slot) for Solidity and (slot, holder) for Vyper', () => {
    const solidity = balanceSlotOf({ layout: 'solidity', slot: 9n }, HOLDER);
    const vyper = balanceSlotOf({ layout: 'vyper', slot: 9n }, HOLDER);
    expect(solidity).toBe(BigInt(keccak256(coder.encode(['address', 'uint256'], [HOLDER, 9n]))));
    expect(vyper).toBe(BigInt(keccak256(coder.encode(['uint256', 'address'], [9n, HOLDER]))));
    expect(solidity).not.toBe(vyper);
  });
});

describe('finding a token’s balance mapping by probing', () => {
  it.each<[string, BalanceMapping]>([
    ['an OpenZeppelin ERC20', { layout: 'solidity', slot: 0n }],
    ['USDC', { layout: 'solidity', slot: 9n }],
    ['a Vyper token', { layout: 'vyper', slot: 3n }],
    ['an OpenZeppelin 5 upgradeable ERC20', { layout: 'solidity', slot: OZ5_ERC20_BALANCES_SLOT }],
  ])('find %s’s mapping and leave its storage as it was', async (_, mapping) => {
    const { storage, probe } = mappingToken(mapping);
    storage.set(balanceSlotOf(mapping, HOLDER), 42n);
    storage.set(0n, 1_000_000n);
    const before = new Map(storage);
    expect(await findBalanceMapping(probe, TOKEN, HOLDER)).toEqual(mapping);
    expect(storage).toEqual(before);
  });

  it('skip a slot whose foreign value makes balanceOf revert', async () => {
    const mapping: BalanceMapping = { layout: 'solidity', slot: 4n };
    const trap = balanceSlotOf({ layout: 'solidity', slot: 1n }, HOLDER);
    const { storage, probe } = fakeToken((s, holder) => {
      if (s.has(trap)) throw new Error('execution reverted');
      return s.get(balanceSlotOf(mapping, holder)) ?? 0n;
    });
    expect(await findBalanceMapping(probe, TOKEN, HOLDER)).toEqual(mapping);
    expect(storage.size).toBe(0);
  });

  it('find nothing for a balance that is not stored per holder, and still restore every slot', async () => {
    const { storage, probe } = fakeToken(() => 7n);
    storage.set(5n, 99n);
    expect(await findBalanceMapping(probe, TOKEN, HOLDER)).toBeUndefined();
    expect(storage).toEqual(new Map([[5n, 99n]]));
  });
});

describe.each([1, 137])('the real tokens forked mode knows on chain %i', (chainId) => {
  const world = knownForkWorld(chainId);
  const spec = worldSpec(chainId);

  it('list the wrapped native first, then tokens of the fixture world with its symbols and decimals', () => {
    expect(world.contracts).toBe(FORK_CONTRACTS[chainId]);
    expect(world.tokens[0]).toEqual({
      symbol: spec.wrapped.symbol,
      address: FORK_CONTRACTS[chainId]?.weth,
      decimals: 18,
    });
    // The token list takes names from the world spec: every symbol must be there, with the same decimals.
    for (const token of world.tokens) expect(tokenSpec(spec, token.symbol).decimals).toBe(token.decimals);
    expect(world.tokens.map((t) => t.symbol)).toEqual(
      expect.arrayContaining(['USDC', 'USDT', 'DAI', 'WBTC']),
    );
  });

  it('make a valid manifest entry (EIP-55 addresses, distinct symbols and addresses)', () => {
    const ours = '0x000000000000000000000000000000000000dEaD';
    const entry = {
      chainId,
      name: `chain ${chainId}`,
      rpcUrl: 'http://127.0.0.1:8545',
      nativeSymbol: spec.nativeSymbol,
      contracts: {
        ...world.contracts,
        swapRouter: ours,
        spender: ours,
        orderExecutor: ours,
        spokePool: ours,
        crossChainEntry: ours,
        lockReleaseBridge: ours,
        rootBundleAdmin: ours,
      },
      tokens: world.tokens,
      accounts: [],
    };
    expect(manifestErrors({ version: 1, chains: [entry] })).toEqual([]);
    // The bridges are ours on a fork too (deployed there, not known), all four of them.
    for (const key of MANIFEST_BRIDGE_KEYS) expect(world.contracts).not.toHaveProperty(key);
    const threeBridges = Object.fromEntries(
      Object.entries(entry.contracts).filter(([key]) => key !== 'rootBundleAdmin'),
    );
    expect(manifestErrors({ version: 1, chains: [{ ...entry, contracts: threeBridges }] })).toEqual([
      expect.stringMatching(
        /^\$\.chains\[0\]\.contracts must have exactly the keys .*, rootBundleAdmin in this order/,
      ),
    ]);
    for (const token of world.tokens) expect(getAddress(token.address)).toBe(token.address);
  });

  it('fund each account as the fixture world does: the wrapped native by deposit, the rest by storage', () => {
    const funding = forkFunding(chainId, world);
    expect(funding.wrapped).toEqual({ ...world.tokens[0], amount: fundAmount(spec, spec.wrapped.symbol) });
    expect(funding.tokens).toEqual(
      world.tokens.slice(1).map((t) => ({ ...t, amount: fundAmount(spec, t.symbol) })),
    );
  });
});

describe('forked mode elsewhere', () => {
  it('refuses a chain whose real contracts it does not know', () => {
    expect(() => knownForkWorld(10)).toThrow(
      'Forked mode knows the contracts of chains 1 and 137 only, not 10',
    );
  });

  it('scales the funded amount to a token’s own decimals', () => {
    const world = knownForkWorld(1);
    const usdc18 = { ...world.tokens[1], decimals: 18 };
    const funding = forkFunding(1, { ...world, tokens: [world.tokens[0], usdc18] });
    expect(usdc18.symbol).toBe('USDC');
    expect(funding.tokens).toEqual([{ ...usdc18, amount: fundAmount(worldSpec(1), 'USDC') * 10n ** 12n }]);
  });
});
