/** The providers whose deposits the keeper relays: Across SpokePool intents and LockReleaseBridge locks. */
export type TransferProvider = 'intent' | 'lock-release';

export const TRANSFER_PROVIDERS: readonly TransferProvider[] = ['intent', 'lock-release'];

/**
 * Intent states: deposited → filling → filled → repaid; deposited → expired → refunded; deposited | filling →
 * filled_by_other. Lock-release states: locked → releasing → released; releasing → release_queued (the release
 * waits the bridge's delay) → released, or → release_cancelled when the bridge's owner cancelled it; locked →
 * refunded (paid back on the origin), or → refused (never released; its depositor refunds it). Both: an initial row whose deposit left the canonical chain (origin reorg) is `reorged` until
 * the indexer finds it again.
 */
export const INTENT_STATUSES = [
  'deposited',
  'filling',
  'filled',
  'repaid',
  'expired',
  'refunded',
  'filled_by_other',
  'reorged',
] as const;
export const LOCK_RELEASE_STATUSES = [
  'locked',
  'releasing',
  'release_queued',
  'released',
  'release_cancelled',
  'refunded',
  'refused',
  'reorged',
] as const;
export type IntentStatus = (typeof INTENT_STATUSES)[number];
export type LockReleaseStatus = (typeof LOCK_RELEASE_STATUSES)[number];
export type TransferStatus = IntentStatus | LockReleaseStatus;

/** Where a transfer waits for the keeper, and where the keeper's destination transaction moves it. */
export const INITIAL_STATUS: Readonly<Record<TransferProvider, 'deposited' | 'locked'>> = {
  intent: 'deposited',
  'lock-release': 'locked',
};
export const IN_FLIGHT_STATUS: Readonly<Record<TransferProvider, 'filling' | 'releasing'>> = {
  intent: 'filling',
  'lock-release': 'releasing',
};
export const DONE_STATUS: Readonly<Record<TransferProvider, 'filled' | 'released'>> = {
  intent: 'filled',
  'lock-release': 'released',
};

/** A repayment or refund leaf once its root bundle is on the SpokePool; txHash once the leaf is executed. */
export interface SettlementRef {
  rootBundleId: number;
  leafId: number;
  txHash: string | null;
}

/** A deposit as the indexer read it from the origin chain. */
export interface NewTransfer {
  provider: TransferProvider;
  originChainId: number;
  destinationChainId: number;
  /** uint256 in decimal. */
  depositId: string;
  /** Intents: bytes32 as the FundsDeposited event carries them; lock-release: addresses. */
  depositor: string;
  recipient: string;
  exclusiveRelayer: string | null;
  inputToken: string;
  outputToken: string;
  inputAmount: bigint;
  outputAmount: bigint;
  message: string | null;
  quoteTimestamp: number | null;
  fillDeadline: number | null;
  exclusivityDeadline: number | null;
  relayHash: string | null;
  originContract: string;
  depositTxHash: string;
  depositBlockNumber: number;
  depositBlockHash: string;
  depositLogIndex: number;
}

export interface Transfer extends NewTransfer {
  id: string;
  status: TransferStatus;
  /** The destination transaction (fill or release): set when signed, before the broadcast. */
  fillTxHash: string | null;
  /** Every hash signed for the destination transaction's nonce, oldest first (fee replacements); [] when none. */
  fillTxHashes: string[];
  fillRawTx: string | null;
  fillSender: string | null;
  fillNonce: number | null;
  fillSentBlock: number | null;
  /** The block of the latest broadcast (the first send or a replacement): replacement waits count from it. */
  fillLastSentBlock: number | null;
  fillSentAt: number | null;
  fillBlockNumber: number | null;
  fillBlockHash: string | null;
  filledBy: string | null;
  leaseOwner: string | null;
  leaseExpiresAt: number | null;
  attempts: number;
  nextAttemptAt: number;
  lastError: string | null;
  /** The root bundle row (this store's id) the repayment / refund leaf belongs to, once planned. */
  repaymentBundleRow: string | null;
  refundBundleRow: string | null;
  repayment: SettlementRef | null;
  refund: SettlementRef | null;
  /** The API key whose swap built the source transaction (it gets the transfer's events); null: none did. */
  apiKey: string | null;
  /** The build the deposit was matched to, with what POST /tx-status shows that the calldata alone fixes. */
  buildId: string | null;
  source: TransferSource | null;
  /** When the keeper first acted on the deposit with its origin confirmations; null while it waits for them. */
  confirmedAt: number | null;
  version: number;
  createdAt: number;
  updatedAt: number;
}

/** What POST /tx-status shows of a source transaction to our entry that its calldata alone fixes. */
export interface TransferSource {
  /** What the account spends, fees included (`fromAmount`), base units. */
  amount: string;
  /** `fromTokenAddress`: the input token, or the native pseudo-address for a native input. */
  token: string;
  /** `toTokenAddress`: the output token as the recipient gets it (the native pseudo-address for wrapped native). */
  deliveredToken: string;
}

/**
 * A cross-chain swap POST /swap built for one of our bridges: the calldata is known by its hash only. A deposit is
 * this build's when its source transaction was sent by `account` to `entry` with exactly this calldata and value.
 */
export interface NewTransferBuild {
  apiKey: string;
  provider: TransferProvider;
  originChainId: number;
  destinationChainId: number;
  account: string;
  entry: string;
  calldataHash: string;
  value: bigint;
  source: TransferSource;
}

export interface TransferBuild extends NewTransferBuild {
  id: string;
  createdAt: number;
}

/** The build a deposit is linked to (its key gets the transfer's events); null: none. */
export interface DepositLink {
  apiKey: string;
  buildId: string;
  source: TransferSource;
}

type Numeric = number | string;

export interface TransferRow {
  id: string;
  provider: string;
  origin_chain_id: Numeric;
  destination_chain_id: Numeric;
  deposit_id: string;
  depositor: string;
  recipient: string;
  exclusive_relayer: string | null;
  input_token: string;
  output_token: string;
  input_amount: string;
  output_amount: string;
  message: string | null;
  quote_timestamp: Numeric | null;
  fill_deadline: Numeric | null;
  exclusivity_deadline: Numeric | null;
  relay_hash: string | null;
  origin_contract: string;
  deposit_tx_hash: string;
  deposit_block_number: Numeric;
  deposit_block_hash: string;
  deposit_log_index: Numeric;
  status: string;
  fill_tx_hash: string | null;
  fill_tx_hashes: string | null;
  fill_raw_tx: string | null;
  fill_sender: string | null;
  fill_nonce: Numeric | null;
  fill_sent_block: Numeric | null;
  fill_last_sent_block: Numeric | null;
  fill_sent_at: Numeric | null;
  fill_block_number: Numeric | null;
  fill_block_hash: string | null;
  filled_by: string | null;
  lease_owner: string | null;
  lease_expires_at: Numeric | null;
  attempts: Numeric;
  next_attempt_at: Numeric;
  last_error: string | null;
  repayment_bundle_row: string | null;
  repayment_bundle_id: Numeric | null;
  repayment_leaf_id: Numeric | null;
  repayment_tx_hash: string | null;
  refund_bundle_row: string | null;
  refund_bundle_id: Numeric | null;
  refund_leaf_id: Numeric | null;
  refund_tx_hash: string | null;
  api_key: string | null;
  build_id: string | null;
  source_amount: string | null;
  source_token: string | null;
  delivered_token: string | null;
  confirmed_at: Numeric | null;
  event_key?: string | null;
  version: Numeric;
  created_at: Numeric;
  updated_at: Numeric;
}

export interface TransferBuildRow {
  id: string;
  api_key: string;
  provider: string;
  origin_chain_id: Numeric;
  destination_chain_id: Numeric;
  account: string;
  entry: string;
  calldata_hash: string;
  value: string;
  source_amount: string;
  source_token: string;
  delivered_token: string;
  created_at: Numeric;
}

export const nullableNumber = (value: Numeric | null): number | null =>
  value === null || value === undefined ? null : Number(value);

function settlement(
  bundleId: Numeric | null,
  leafId: Numeric | null,
  txHash: string | null,
): SettlementRef | null {
  if (bundleId === null || leafId === null) return null;
  return { rootBundleId: Number(bundleId), leafId: Number(leafId), txHash };
}

export function transferFromRow(row: TransferRow): Transfer {
  return {
    id: row.id,
    provider: row.provider as TransferProvider,
    originChainId: Number(row.origin_chain_id),
    destinationChainId: Number(row.destination_chain_id),
    depositId: row.deposit_id,
    depositor: row.depositor,
    recipient: row.recipient,
    exclusiveRelayer: row.exclusive_relayer,
    inputToken: row.input_token,
    outputToken: row.output_token,
    inputAmount: BigInt(row.input_amount),
    outputAmount: BigInt(row.output_amount),
    message: row.message,
    quoteTimestamp: nullableNumber(row.quote_timestamp),
    fillDeadline: nullableNumber(row.fill_deadline),
    exclusivityDeadline: nullableNumber(row.exclusivity_deadline),
    relayHash: row.relay_hash,
    originContract: row.origin_contract,
    depositTxHash: row.deposit_tx_hash,
    depositBlockNumber: Number(row.deposit_block_number),
    depositBlockHash: row.deposit_block_hash,
    depositLogIndex: Number(row.deposit_log_index),
    status: row.status as TransferStatus,
    fillTxHash: row.fill_tx_hash,
    fillTxHashes: hashList(row.fill_tx_hashes, row.fill_tx_hash),
    fillRawTx: row.fill_raw_tx,
    fillSender: row.fill_sender,
    fillNonce: nullableNumber(row.fill_nonce),
    fillSentBlock: nullableNumber(row.fill_sent_block),
    fillLastSentBlock: nullableNumber(row.fill_last_sent_block),
    fillSentAt: nullableNumber(row.fill_sent_at),
    fillBlockNumber: nullableNumber(row.fill_block_number),
    fillBlockHash: row.fill_block_hash,
    filledBy: row.filled_by,
    leaseOwner: row.lease_owner,
    leaseExpiresAt: nullableNumber(row.lease_expires_at),
    attempts: Number(row.attempts),
    nextAttemptAt: Number(row.next_attempt_at),
    lastError: row.last_error,
    repaymentBundleRow: row.repayment_bundle_row,
    refundBundleRow: row.refund_bundle_row,
    repayment: settlement(row.repayment_bundle_id, row.repayment_leaf_id, row.repayment_tx_hash),
    refund: settlement(row.refund_bundle_id, row.refund_leaf_id, row.refund_tx_hash),
    apiKey: row.api_key ?? null,
    buildId: row.build_id ?? null,
    source: sourceOf(row),
    confirmedAt: nullableNumber(row.confirmed_at ?? null),
    version: Number(row.version),
    createdAt: Number(row.created_at),
    updatedAt: Number(row.updated_at),
  };
}

/** The stored source fields; null on a transfer no build of ours made (or stored before they existed). */
export function sourceOf(
  row: Pick<TransferRow, 'source_amount' | 'source_token' | 'delivered_token'>,
): TransferSource | null {
  if (!row.source_amount || !row.source_token || !row.delivered_token) return null;
  return { amount: row.source_amount, token: row.source_token, deliveredToken: row.delivered_token };
}

/** The link's columns: a deposit re-read after a reorg is linked again (or unlinked) from its new transaction. */
export function linkColumns(link: DepositLink | null): Partial<TransferRow> {
  return {
    api_key: link?.apiKey ?? null,
    build_id: link?.buildId ?? null,
    source_amount: link?.source.amount ?? null,
    source_token: link?.source.token ?? null,
    delivered_token: link?.source.deliveredToken ?? null,
  };
}

export function buildFromRow(row: TransferBuildRow): TransferBuild {
  return {
    id: row.id,
    apiKey: row.api_key,
    provider: row.provider as TransferProvider,
    originChainId: Number(row.origin_chain_id),
    destinationChainId: Number(row.destination_chain_id),
    account: row.account,
    entry: row.entry,
    calldataHash: row.calldata_hash,
    value: BigInt(row.value),
    source: { amount: row.source_amount, token: row.source_token, deliveredToken: row.delivered_token },
    createdAt: Number(row.created_at),
  };
}

/** The deposit's columns, as the indexer writes them on insert and on a re-read after a reorg. */
export function depositColumns(d: NewTransfer): Partial<TransferRow> {
  return {
    destination_chain_id: d.destinationChainId,
    depositor: d.depositor,
    recipient: d.recipient,
    exclusive_relayer: d.exclusiveRelayer,
    input_token: d.inputToken,
    output_token: d.outputToken,
    input_amount: d.inputAmount.toString(),
    output_amount: d.outputAmount.toString(),
    message: d.message,
    quote_timestamp: d.quoteTimestamp,
    fill_deadline: d.fillDeadline,
    exclusivity_deadline: d.exclusivityDeadline,
    relay_hash: d.relayHash,
    origin_contract: d.originContract.toLowerCase(),
    deposit_tx_hash: d.depositTxHash,
    deposit_block_number: d.depositBlockNumber,
    deposit_block_hash: d.depositBlockHash,
    deposit_log_index: d.depositLogIndex,
  };
}

/** The destination transaction's columns cleared: nothing of ours is in flight for the transfer any more. */
export const NO_FILL_TX: Readonly<Partial<TransferRow>> = {
  fill_tx_hash: null,
  fill_tx_hashes: null,
  fill_last_sent_block: null,
  fill_raw_tx: null,
  fill_sender: null,
  fill_nonce: null,
  fill_sent_block: null,
  fill_sent_at: null,
};

/** The stored hash list; rows written before it existed have only `fill_tx_hash`. */
function hashList(text: string | null, latest: string | null): string[] {
  const parsed: unknown = text ? JSON.parse(text) : [];
  const hashes = Array.isArray(parsed) ? parsed.map(String) : [];
  if (latest && !hashes.includes(latest)) hashes.push(latest);
  return hashes;
}

const ERROR_LENGTH = 500;

/** Error text as stored: bounded to the column. */
export function errorText(error: string): string {
  return error.length > ERROR_LENGTH ? `${error.slice(0, ERROR_LENGTH - 1)}…` : error;
}
