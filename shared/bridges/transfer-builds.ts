import { getAddress, keccak256 } from 'ethers';
import type { ChainRegistry } from '../chain/chain-registry';
import { bytes32ToAddress } from './across/relay-data';
import type { CrossChainSwap } from './cross-chain-provider';
import { decodeEntryCall, type EntryCall } from './entry-call';
import { INTENT_PROVIDER_ID } from './intent/intent-deps';
import { LOCK_RELEASE_PROVIDER_ID } from './lock-release/lock-release-deps';
import { entryCallFields } from './source-status';

/**
 * Which API key built a transfer (it alone gets the transfer's `transfer.updated` events).
 *
 * POST /swap records each cross-chain swap it hands out for our bridges as a build: the key, the origin chain, the
 * account, the entry contract, keccak256 of the calldata and the value. When the keeper indexes a deposit whose
 * depositor has builds on its chain, it reads the deposit's source transaction and links the deposit to a build
 * only when the transaction was signed by the build's account (the depositor our entry names is its caller) and
 * sent to the build's entry with exactly the build's calldata and value, and the deposit is the one that calldata
 * makes. So another key's copy of the calldata sent from another wallet, a deposit made straight to the SpokePool or
 * the bridge with a build's figures, or any transaction not built through the API links to nothing. Two keys that
 * built byte-identical calldata for the same account (the same account, amounts and clocks to the second): the
 * transfer goes to neither, so a key never receives a transfer another key may have built.
 */

/** The providers whose deposits the keeper indexes, by the id the swap names them with. */
type BuiltProvider = 'intent' | 'lock-release';
const BUILT_PROVIDERS: Readonly<Record<string, BuiltProvider>> = {
  [INTENT_PROVIDER_ID]: 'intent',
  [LOCK_RELEASE_PROVIDER_ID]: 'lock-release',
};
const METHOD: Readonly<Record<BuiltProvider, EntryCall['method']>> = {
  intent: 'depositIntent',
  'lock-release': 'lock',
};

/** What POST /swap records of a build (transfer-rows.ts NewTransferBuild without the key). */
export interface BuildFacts {
  provider: BuiltProvider;
  originChainId: number;
  destinationChainId: number;
  account: string;
  entry: string;
  calldataHash: string;
  value: bigint;
  source: { amount: string; token: string; deliveredToken: string };
}

/** A stored build as matching needs it. */
export interface BuildCandidate {
  id: string;
  apiKey: string;
  provider: string;
  originChainId: number;
  account: string;
  entry: string;
  calldataHash: string;
  value: bigint;
  source: BuildFacts['source'];
  createdAt: number;
}

/** A deposit as the indexer read it (transfer-rows.ts NewTransfer), as far as matching looks at it. */
export interface IndexedDeposit {
  provider: string;
  originChainId: number;
  destinationChainId: number;
  depositor: string;
  recipient: string;
  inputToken: string;
  outputToken: string;
  inputAmount: bigint;
  outputAmount: bigint;
}

/** The source transaction of a deposit, as the origin chain returns it. */
export interface SourceTx {
  from: string;
  to: string | null;
  data: string;
  value: bigint;
}

export const calldataHash = (data: string): string => keccak256(data).toLowerCase();

/** An EVM address in lowercase from an address or an intent's bytes32; undefined for anything else. */
export function evmAddress(value: string): string | undefined {
  try {
    return (/^0x[0-9a-fA-F]{64}$/.test(value) ? bytes32ToAddress(value) : getAddress(value)).toLowerCase();
  } catch {
    return undefined;
  }
}

/** The account whose builds a deposit may be: its depositor (our entry names its caller). */
export const depositAccount = (deposit: Pick<IndexedDeposit, 'depositor'>): string | undefined =>
  evmAddress(deposit.depositor);

/**
 * The build of a cross-chain swap POST /swap hands out, with the status fields its calldata fixes; undefined for a
 * provider whose deposits the keeper does not index (LI.FI) or calldata that is no call to our entry.
 */
export function buildFactsOf(
  chains: ChainRegistry,
  providerId: string,
  originChainId: number,
  account: string,
  swap: Pick<CrossChainSwap, 'to' | 'data' | 'value'>,
): BuildFacts | undefined {
  const provider = BUILT_PROVIDERS[providerId];
  if (!provider) return undefined;
  const call = decodeEntryCall(swap, swap.to);
  if (!call || call.method !== METHOD[provider]) return undefined;
  const fields = entryCallFields(chains, call);
  return {
    provider,
    originChainId,
    destinationChainId: call.destinationChainId,
    account: account.toLowerCase(),
    entry: swap.to.toLowerCase(),
    calldataHash: calldataHash(swap.data),
    value: swap.value,
    source: {
      amount: fields.fromAmount,
      token: fields.fromTokenAddress,
      deliveredToken: fields.toTokenAddress,
    },
  };
}

/** Whether the deposit is exactly what the entry call asks for (not another deposit made in the same transaction). */
function depositOfCall(deposit: IndexedDeposit, call: EntryCall): boolean {
  return (
    evmAddress(deposit.inputToken) === evmAddress(call.inputToken) &&
    evmAddress(deposit.outputToken) === evmAddress(call.outputToken) &&
    evmAddress(deposit.recipient) === evmAddress(call.recipient) &&
    deposit.inputAmount === call.inputAmount &&
    deposit.outputAmount === call.outputAmount &&
    deposit.destinationChainId === call.destinationChainId
  );
}

/**
 * The build a deposit is linked to, given its source transaction and the builds of its depositor on its origin
 * chain; undefined when the transaction is not exactly one build's (or builds of two keys match it).
 */
export function linkDeposit(
  deposit: IndexedDeposit,
  tx: SourceTx,
  builds: readonly BuildCandidate[],
): BuildCandidate | undefined {
  const account = depositAccount(deposit);
  const entry = tx.to?.toLowerCase();
  if (!account || !entry || tx.from.toLowerCase() !== account) return undefined;
  const call = decodeEntryCall({ to: entry, data: tx.data, value: tx.value }, entry);
  if (!call || call.method !== METHOD[deposit.provider as BuiltProvider]) return undefined;
  if (!depositOfCall(deposit, call)) return undefined;
  const hash = calldataHash(tx.data);
  const matching = builds
    .filter(
      (b) =>
        b.provider === deposit.provider &&
        b.originChainId === deposit.originChainId &&
        b.account.toLowerCase() === account &&
        b.entry.toLowerCase() === entry &&
        b.calldataHash === hash &&
        b.value === tx.value,
    )
    .sort((a, b) => a.createdAt - b.createdAt || (a.id < b.id ? -1 : 1));
  const keys = new Set(matching.map((b) => b.apiKey));
  return keys.size === 1 ? matching[0] : undefined;
}
