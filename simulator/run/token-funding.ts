import { Contract, Interface, toQuantity } from 'ethers';
import type { ChainHandle } from '../../devnet/engine/devnet-chain';
import { balanceSlotOf, findBalanceMapping, type BalanceMapping } from '../../devnet/fork/balance-slot';
import { chainStorageProbe } from '../../devnet/fork/fund-fork-accounts';
import { ERC20_ABI, WETH_ABI } from '../../devnet/world/abis';
import { succeeded } from './mined-receipt';

const WETH = new Interface(WETH_ABI);
const DEPOSIT_GAS = 100_000n;

/**
 * Gives accounts exact token balances on a devnet chain, fixture or fork alike: an ERC-20's balance entry is written
 * in its storage (the mapping found once per token by probing), and the wrapped native is deposited from native
 * coins set on the account, so it stays backed one for one.
 */
export class TokenFunding {
  private readonly mappings = new Map<string, Promise<BalanceMapping>>();

  constructor(
    private readonly chain: ChainHandle,
    private readonly wrappedNative: string,
  ) {}

  /** Sets `holder`'s balance of `token` to at least `amount` (exactly, for a plain ERC-20). */
  async fund(token: string, holder: string, amount: bigint): Promise<void> {
    if (token.toLowerCase() === this.wrappedNative.toLowerCase()) return this.wrap(holder, amount);
    const mapping = await this.mappingOf(token, holder);
    await this.chain.setStorageAt(token, balanceSlotOf(mapping, holder), amount);
    const held = await this.balanceOf(token, holder);
    if (held !== amount) throw new Error(`funding ${holder} with ${amount} of ${token} left ${held}`);
  }

  /** Native coins for gas (and for wrapping), on top of nothing: the balance is set, not added to. */
  async setNative(holder: string, wei: bigint): Promise<void> {
    await this.chain.setBalance(holder, wei);
  }

  balanceOf(token: string, holder: string): Promise<bigint> {
    return new Contract(token, ERC20_ABI, this.chain.provider).getFunction('balanceOf')(
      holder,
    ) as Promise<bigint>;
  }

  private async wrap(holder: string, amount: bigint): Promise<void> {
    const held = await this.balanceOf(this.wrappedNative, holder);
    if (held >= amount) return;
    const coins = await this.chain.provider.getBalance(holder);
    // Keep the account's gas money on top of what it wraps.
    await this.chain.setBalance(holder, coins + amount - held);
    await this.chain.impersonate(holder);
    try {
      const hash = (await this.chain.provider.send('eth_sendTransaction', [
        {
          from: holder,
          to: this.wrappedNative,
          data: WETH.encodeFunctionData('deposit', []),
          value: toQuantity(amount - held),
          gas: toQuantity(DEPOSIT_GAS),
        },
      ])) as string;
      if (!(await succeeded(this.chain.provider, hash)))
        throw new Error(`wrapping for ${holder} failed in ${hash}`);
    } finally {
      await this.chain.stopImpersonating(holder);
    }
  }

  private mappingOf(token: string, holder: string): Promise<BalanceMapping> {
    const key = token.toLowerCase();
    let found = this.mappings.get(key);
    if (!found) {
      found = findBalanceMapping(chainStorageProbe(this.chain), token, holder).then((mapping) => {
        if (!mapping)
          throw new Error(`no balance mapping found for token ${token} on chain ${this.chain.chainId}`);
        return mapping;
      });
      this.mappings.set(key, found);
    }
    return found;
  }
}
