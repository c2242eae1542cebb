import { Contract, type Wallet } from 'ethers';
import type { ChainHandle } from '../engine/devnet-chain';
import type { ManifestToken } from '../manifest';
import { ERC20_ABI, WETH_ABI } from '../world/abis';
import { TxQueue } from '../world/tx-queue';
import {
  MAX_PROBED_SLOT,
  balanceSlotOf,
  findBalanceMapping,
  type BalanceMapping,
  type StorageProbe,
} from './balance-slot';

/** A token and the raw amount (base units) each account is to hold of it. */
export interface FundedToken extends ManifestToken {
  amount: bigint;
}

export interface ForkFunding {
  /** The wrapped native: each account wraps its own native coins, so the token's supply stays backed. */
  wrapped?: FundedToken;
  /** ERC-20s whose balances are written straight into storage (their total supply is not adjusted). */
  tokens: readonly FundedToken[];
}

/** Where each storage-funded token keeps its balances, in the order of ForkFunding.tokens. */
export type FoundMappings = Array<{ symbol: string; mapping: BalanceMapping }>;

const DEPOSIT_GAS = 80_000n;

/** Storage reads and writes and balanceOf calls on the chain, as probing needs them. */
export function chainStorageProbe(chain: ChainHandle): StorageProbe {
  return {
    read: async (address, slot) => {
      const word = await chain.provider.getStorage(address, slot);
      // ganache answers an empty slot of a forked account with a bare 0x.
      return word === '0x' ? 0n : BigInt(word);
    },
    write: (address, slot, value) => chain.setStorageAt(address, slot, value),
    balanceOf: (token, holder) => balanceOf(chain, token, holder),
  };
}

/**
 * Waits for every promise, then throws the first failure: no request is left running against the chain (and
 * through it the fork URL) when a caller stops the chain on the error.
 */
async function settleAll(promises: ReadonlyArray<Promise<unknown>>): Promise<void> {
  const results = await Promise.allSettled(promises);
  const failed = results.find((r): r is PromiseRejectedResult => r.status === 'rejected');
  if (failed) throw failed.reason;
}

async function balanceOf(chain: ChainHandle, token: string, holder: string): Promise<bigint> {
  return (await new Contract(token, ERC20_ABI, chain.provider).getFunction('balanceOf')(holder)) as bigint;
}

/**
 * Gives every account exactly `amount` of each token on a forked chain, without knowing any holder of the
 * tokens: each token's balance mapping is found by probing (balance-slot.ts) with the first account, then every
 * account's entry is written. The wrapped native is deposited by each account from its native coins (funded
 * at genesis), topped up to `amount`. Throws, naming the token, when a mapping is not found or a balance does not
 * read back exactly.
 */
export async function fundForkAccounts(
  chain: ChainHandle,
  funding: ForkFunding,
  accounts: readonly Wallet[],
): Promise<FoundMappings> {
  if (accounts.length === 0) return [];
  const probe = chainStorageProbe(chain);
  // One write at a time: ganache loses some of the storage writes that run concurrently, even to other contracts.
  const found: FoundMappings = [];
  for (const token of funding.tokens) {
    const mapping = await findBalanceMapping(probe, token.address, accounts[0].address);
    if (!mapping) {
      throw new Error(
        `cannot fund ${token.symbol} (${token.address}) on chain ${chain.chainId}: no balance mapping at ` +
          `slots 0..${MAX_PROBED_SLOT} (Solidity or Vyper layout) or OpenZeppelin 5's ERC-7201 namespace`,
      );
    }
    for (const account of accounts) {
      await chain.setStorageAt(token.address, balanceSlotOf(mapping, account.address), token.amount);
    }
    found.push({ symbol: token.symbol, mapping });
  }
  if (funding.wrapped) await depositWrapped(chain, funding.wrapped, accounts);
  const checks = [
    ...funding.tokens.map((token) => ({ token, exact: true })),
    // An account that held more of the wrapped native keeps it: nothing is unwrapped.
    ...(funding.wrapped ? [{ token: funding.wrapped, exact: false }] : []),
  ];
  await settleAll(
    checks.flatMap(({ token, exact }) =>
      accounts.map(async (account) => {
        const held = await balanceOf(chain, token.address, account.address);
        if (exact ? held !== token.amount : held < token.amount) {
          throw new Error(
            `${account.address} holds ${held} ${token.symbol} on chain ${chain.chainId} after funding, ` +
              `not ${token.amount}`,
          );
        }
      }),
    ),
  );
  return found;
}

async function depositWrapped(
  chain: ChainHandle,
  wrapped: FundedToken,
  accounts: readonly Wallet[],
): Promise<void> {
  await settleAll(
    accounts.map(async (wallet) => {
      const held = await balanceOf(chain, wrapped.address, wallet.address);
      if (held >= wrapped.amount) return;
      const missing = wrapped.amount - held;
      const coins = await chain.provider.getBalance(wallet.address);
      if (coins <= missing) {
        throw new Error(
          `${wallet.address} holds ${coins} wei on chain ${chain.chainId}, too little to wrap ${missing} ` +
            `into ${wrapped.symbol}`,
        );
      }
      const queue = await TxQueue.create(chain.provider, wallet.connect(chain.provider), { mining: chain });
      queue.call(`${wrapped.symbol}.deposit`, wrapped.address, WETH_ABI, 'deposit', [], DEPOSIT_GAS, missing);
      await queue.flush();
    }),
  );
}
