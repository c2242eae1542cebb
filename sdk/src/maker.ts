import { Contract, getAddress, type Signer } from 'ethers';
import { allowanceNeeded, type AllowanceNeeds } from './allowance';
import { numberToBaseUnitsCeil, toBaseUnits } from './amounts';
import type { TasClient } from './client';
import { TasError } from './errors';
import { TokenList } from './token-list';
import type { DcaStrategy, LimitOrder, OrderAuthorization } from './types';

const ERC20_APPROVE_ABI = ['function approve(address spender, uint256 amount) returns (bool)'];

/**
 * Signs the pair authorization GET /order-authorization describes. ethers derives the domain type itself, so
 * `EIP712Domain` is left out of the types it is given.
 */
export function signPairAuthorization(
  signer: Signer,
  typedData: OrderAuthorization['typedData'],
): Promise<string> {
  const types = Object.fromEntries(
    Object.entries(typedData.types).filter(([name]) => name !== 'EIP712Domain'),
  ) as Record<string, Array<{ name: string; type: string }>>;
  return signer.signTypedData(typedData.domain, types, typedData.message);
}

export interface EnsuredAllowance {
  /** The allowance now (after the approval, when one was sent). */
  allowance: bigint;
  needed: bigint;
  /** Set when an approval was sent (and mined successfully). */
  approvalTxHash?: string;
}

export interface MakerLimitOrder {
  chainId: number;
  /** Token sold and bought: address or symbol of GET /tokens. */
  sell: string;
  buy: string;
  /** Human-readable units of `sell`. */
  amount: string;
  /** Units of `buy` per 1 `sell`; also sent as `price`. */
  priceTrigger: string;
  /** Default 86400. */
  expiresInSeconds?: number;
  /** Percent; default '1'. */
  slippage?: string;
  /** Gwei; default '30'. */
  gasPrice?: string;
}

export interface MakerDcaStrategy {
  chainId: number;
  sell: string;
  buy: string;
  /** Whole budget in human-readable units of `sell`. */
  totalAmount: number;
  iterations: number;
  /** Seconds between orders. */
  frequency: number;
  /** Percent; default 1. */
  slippage?: number;
  minPrice?: number;
  maxPrice?: number;
}

/** A contract wallet as the maker (a Safe or any ERC-1271 wallet) whose owner key is the Maker's signer. */
export interface MakerWalletOptions {
  /** The wallet's address: the `accountTo` of its orders and the account whose allowance counts. */
  wallet: string;
  /**
   * Sends the wallet's `approve(spender, amount)` on `token` (for a Safe: a Safe transaction) and resolves once it
   * is mined, with its hash. Without it, an allowance short of what the orders need is an `ALLOWANCE_SHORT` error
   * naming the approval to make.
   */
  approve?: (p: { token: string; spender: string; amount: bigint }) => Promise<string>;
}

/**
 * The maker's side of limit orders and DCA with one ethers signer (connected to the chain's provider): what to
 * sign and approve comes from GET /order-authorization, tokens from GET /tokens. The maker is the signer's own
 * address, or a contract wallet it signs for (`options.wallet`): the order contract asks the wallet's
 * `isValidSignature` (ERC-1271).
 */
export class Maker {
  private readonly tokens: TokenList;

  constructor(
    readonly client: TasClient,
    readonly signer: Signer,
    readonly options?: MakerWalletOptions,
  ) {
    this.tokens = new TokenList(client);
  }

  /** The maker's EIP-55 address (the `accountTo` of its orders). */
  async address(): Promise<string> {
    return getAddress(this.options?.wallet ?? (await this.signer.getAddress()));
  }

  /** GET /order-authorization for this maker; tokens by address or symbol. */
  async authorization(chainId: number, tokenIn: string, tokenOut: string): Promise<OrderAuthorization> {
    const [sell, buy] = await Promise.all([
      this.tokens.find(chainId, tokenIn),
      this.tokens.find(chainId, tokenOut),
    ]);
    return this.client.orderAuthorization({
      chainId,
      accountTo: await this.address(),
      tokenIn: getAddress(sell.address),
      tokenOut: getAddress(buy.address),
    });
  }

  /**
   * The pair signature the orders carry (one per maker and pair, valid for all of them), for the fee cap the
   * contract has now: send that cap (`authorization(...).typedData.message.maxFeeBps`) as each order's
   * `maxFeeBps`. createLimitOrder and createDcaStrategy do both.
   */
  async signPair(chainId: number, tokenIn: string, tokenOut: string): Promise<string> {
    return signPairAuthorization(
      this.signer,
      (await this.authorization(chainId, tokenIn, tokenOut)).typedData,
    );
  }

  /**
   * Approves the spender when the allowance is below what the open orders, the new ones (`adding` base units over
   * `newOrders` executions) and their fees plus `bufferBps` of the fees need; approves exactly that much.
   */
  async ensureAllowance(
    chainId: number,
    tokenIn: string,
    tokenOut: string,
    opts: AllowanceNeeds = {},
  ): Promise<EnsuredAllowance> {
    return this.approveIfBelow(await this.authorization(chainId, tokenIn, tokenOut), opts);
  }

  /** Resolves the tokens, signs the pair, ensures the allowance and creates the order (never retried). */
  async createLimitOrder(p: MakerLimitOrder): Promise<LimitOrder> {
    const [sell, buy] = await Promise.all([
      this.tokens.find(p.chainId, p.sell),
      this.tokens.find(p.chainId, p.buy),
    ]);
    const amount = toBaseUnits(p.amount, sell.decimals);
    const auth = await this.authorization(p.chainId, sell.address, buy.address);
    const signature = await signPairAuthorization(this.signer, auth.typedData);
    await this.approveIfBelow(auth, { adding: amount, newOrders: 1 });
    return this.client.createLimitOrder({
      accountTo: auth.accountTo,
      chainId: p.chainId,
      inTokenAddress: auth.tokenIn,
      outTokenAddress: auth.tokenOut,
      tokenASymbol: sell.symbol,
      tokenBSymbol: buy.symbol,
      amount: p.amount.trim(),
      priceTrigger: p.priceTrigger,
      price: p.priceTrigger,
      expired: String(Date.now() + (p.expiresInSeconds ?? 86_400) * 1000),
      gasPrice: p.gasPrice ?? '30',
      slippage: p.slippage ?? '1',
      signature,
      // The cap the signature carries: the contract checks the signature against it.
      maxFeeBps: auth.typedData.message.maxFeeBps,
    });
  }

  /** As createLimitOrder for a strategy: the allowance covers its whole budget and a fee per iteration. */
  async createDcaStrategy(p: MakerDcaStrategy): Promise<DcaStrategy> {
    const [sell, buy] = await Promise.all([
      this.tokens.find(p.chainId, p.sell),
      this.tokens.find(p.chainId, p.buy),
    ]);
    const amount = numberToBaseUnitsCeil(p.totalAmount, sell.decimals);
    const auth = await this.authorization(p.chainId, sell.address, buy.address);
    const signature = await signPairAuthorization(this.signer, auth.typedData);
    await this.approveIfBelow(auth, { adding: amount, newOrders: p.iterations });
    return this.client.createDcaStrategy({
      accountTo: auth.accountTo,
      chainIdFrom: p.chainId,
      chainIdTo: p.chainId,
      tokenAddressFrom: auth.tokenIn,
      tokenAddressTo: auth.tokenOut,
      tokenSymbolFrom: sell.symbol,
      tokenSymbolTo: buy.symbol,
      pair: `${sell.symbol}/${buy.symbol}`,
      totalAmount: p.totalAmount,
      iterations: p.iterations,
      frequency: p.frequency,
      slippage: p.slippage ?? 1,
      ...(p.minPrice === undefined ? {} : { minPrice: p.minPrice }),
      ...(p.maxPrice === undefined ? {} : { maxPrice: p.maxPrice }),
      signature,
      maxFeeBps: auth.typedData.message.maxFeeBps,
    });
  }

  private async approveIfBelow(auth: OrderAuthorization, needs: AllowanceNeeds): Promise<EnsuredAllowance> {
    const needed = allowanceNeeded(auth, needs);
    const allowance = BigInt(auth.allowance);
    if (allowance >= needed) return { allowance, needed };
    if (this.options) {
      if (!this.options.approve) {
        throw new TasError({
          code: 'ALLOWANCE_SHORT',
          status: 0,
          message: `the wallet ${auth.accountTo} must approve ${needed} of ${auth.tokenIn} to ${auth.spender} (allowance ${allowance})`,
        });
      }
      const approvalTxHash = await this.options.approve({
        token: auth.tokenIn,
        spender: auth.spender,
        amount: needed,
      });
      return { allowance: needed, needed, approvalTxHash };
    }
    const token = new Contract(auth.tokenIn, ERC20_APPROVE_ABI, this.signer);
    const tx = await token.getFunction('approve')(auth.spender, needed);
    const receipt = await tx.wait();
    if (!receipt || receipt.status !== 1) {
      throw new TasError({
        code: 'APPROVAL_FAILED',
        status: 0,
        message: `approve(${auth.spender}, ${needed}) on ${auth.tokenIn} did not succeed (transaction ${tx.hash})`,
      });
    }
    return { allowance: needed, needed, approvalTxHash: tx.hash };
  }
}
