import type { Result } from 'ethers';
import type { ChainClient } from '../chain/chain-client';
import type { ChainConfig } from '../config/config-schema';
import { isNativeAddress, ZERO_ADDRESS } from '../domain/addresses';
import { applyFees } from '../routing/fees';
import { crossChainEntryInterface } from './contracts';
import type { CrossChainRequest, CrossChainSwap, TransferToken } from './cross-chain-provider';

/** Calldata of a CrossChainEntry call expires on-chain this long after it is built (the spec's 5 minutes). */
export const ENTRY_DEADLINE_SECONDS = 300;

/** CrossChainEntry.Fees: both taken from the input, in the source token. */
export interface EntryFees {
  protocolFee: bigint;
  integratorFee: bigint;
  integratorFeeRecipient: string;
}

/** What the account spends split into the fees and what reaches the bridge. */
export interface SourceAmounts {
  fees: EntryFees;
  /** amountIn less both fees: the bridge's inputAmount. */
  bridged: bigint;
}

/**
 * The fees exactly as the service's SwapRouter rounds them (each from the whole input, rounded down), here taken
 * from the input rather than the output: what the account spends is `amountIn`, fees included.
 */
export function sourceAmounts(request: CrossChainRequest): SourceAmounts {
  const split = applyFees(request.amountIn, request.protocolFeePips, request.integratorFeeBps);
  return {
    fees: {
      protocolFee: split.protocolFeeAmount,
      integratorFee: split.integratorMarginAmount,
      integratorFeeRecipient:
        split.integratorMarginAmount > 0n && request.integratorFeeRecipient
          ? request.integratorFeeRecipient
          : ZERO_ADDRESS,
    },
    bridged: split.amountOut,
  };
}

/** The ERC-20 a bridge moves for a token: the chain's wrapped native for its native coin. */
export function bridgedToken(token: TransferToken, chain: Pick<ChainConfig, 'wrappedNative'>): string {
  return token.native || isNativeAddress(token.address) ? chain.wrappedNative : token.address;
}

/** The account's deadline for the calldata: the chain's clock or the wall clock, whichever is later, plus 5 minutes. */
export async function entryDeadline(client: ChainClient, nowMs: number): Promise<bigint> {
  const block = await client.getBlock('latest');
  const chainTime = block?.timestamp ?? 0;
  return BigInt(Math.max(chainTime, Math.floor(nowMs / 1000)) + ENTRY_DEADLINE_SECONDS);
}

/** The transaction to CrossChainEntry: the account sends the whole input (as value for a native input). */
export function entryTransaction(args: {
  entry: string;
  data: string;
  tokenIn: TransferToken;
  amountIn: bigint;
  estimatedGas: bigint;
  amountOut: bigint;
  minimumReceived: bigint;
}): CrossChainSwap {
  const native = args.tokenIn.native || isNativeAddress(args.tokenIn.address);
  return {
    to: args.entry,
    data: args.data,
    value: native ? args.amountIn : 0n,
    ...(native ? {} : { contractToApprove: args.entry }),
    estimatedGas: args.estimatedGas,
    amountOut: args.amountOut,
    minimumReceived: args.minimumReceived,
  };
}

/** A CrossChainEntry call read back from a transaction: what the account meant to send where. */
export interface EntryCall {
  method: 'depositIntent' | 'lock';
  inputToken: string;
  /** What reaches the bridge (the deposit's or the lock's inputAmount). */
  inputAmount: bigint;
  /** What the account spent: the bridged input plus both fees. */
  spent: bigint;
  outputToken: string;
  outputAmount: bigint;
  destinationChainId: number;
  recipient: string;
  /** The account paid in the native coin (msg.value). */
  nativeInput: boolean;
}

/** The entry call of a transaction sent to `entry`; undefined for any other transaction. */
export function decodeEntryCall(
  tx: { to: string | null; data: string; value: bigint },
  entry: string,
): EntryCall | undefined {
  if (!tx.to || tx.to.toLowerCase() !== entry.toLowerCase()) return undefined;
  let parsed;
  try {
    parsed = crossChainEntryInterface().parseTransaction({ data: tx.data, value: tx.value });
  } catch {
    return undefined;
  }
  if (!parsed || (parsed.name !== 'depositIntent' && parsed.name !== 'lock')) return undefined;
  const transfer = parsed.args[0] as Result;
  const fees = parsed.args[1] as Result;
  const inputAmount = transfer.getValue('inputAmount') as bigint;
  return {
    method: parsed.name,
    inputToken: transfer.getValue('inputToken') as string,
    inputAmount,
    spent:
      inputAmount + (fees.getValue('protocolFee') as bigint) + (fees.getValue('integratorFee') as bigint),
    outputToken: transfer.getValue('outputToken') as string,
    outputAmount: transfer.getValue('outputAmount') as bigint,
    destinationChainId: Number(transfer.getValue('destinationChainId') as bigint),
    recipient: transfer.getValue('recipient') as string,
    nativeInput: tx.value > 0n,
  };
}
