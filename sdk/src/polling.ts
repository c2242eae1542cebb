import type { TasClient } from './client';
import { NetworkError, PollTimeoutError, RateLimitError, ServerError, TasError } from './errors';
import type { DcaStrategy, LimitOrder, TransferStatus } from './types';
import { abortReason, pause } from './pause';

export interface PollOptions<T> {
  /** Default 300000 (5 minutes). */
  timeoutMs?: number;
  /** Between reads; default 1000. */
  intervalMs?: number;
  /** Aborting rejects with the signal's reason. */
  signal?: AbortSignal;
  /** Called with every value read. */
  onUpdate?: (value: T) => void;
}

export const LIMIT_ORDER_FINAL_STATUSES: readonly string[] = ['completed', 'failed', 'cancelled'];
export const DCA_STRATEGY_FINAL_STATUSES: readonly string[] = ['finished', 'cancelled'];
/** The spec's provider-specific transfer statuses; any other value means in progress. */
export const TRANSFER_SUCCESS_STATUSES: readonly string[] = ['SUCCESS', 'DONE', 'success', 'Success'];
export const TRANSFER_FAILURE_STATUSES: readonly string[] = [
  'FAILURE',
  'FAILED',
  'failed',
  'REFUND',
  'Reverted',
  'FROM_FAILURE',
  'INVALID',
];

/** Failures that say nothing about the resource: the next read may succeed. */
const isTransient = (err: unknown): boolean =>
  err instanceof NetworkError || err instanceof ServerError || err instanceof RateLimitError;

/**
 * Reads until `done` holds or the deadline passes (then PollTimeoutError with the last value read). Transient
 * failures (network, 5xx, 429, after the client's own retries) and those `notYet` accepts only mean "read again".
 */
async function poll<T>(
  what: string,
  read: () => Promise<T>,
  done: (value: T) => boolean,
  opts: PollOptions<T>,
  notYet: (err: unknown) => boolean = () => false,
): Promise<T> {
  const deadline = Date.now() + (opts.timeoutMs ?? 300_000);
  const interval = opts.intervalMs ?? 1000;
  let last: T | undefined;
  let lastError: unknown;
  for (;;) {
    if (opts.signal?.aborted) throw abortReason(opts.signal);
    try {
      last = await read();
      lastError = undefined;
      opts.onUpdate?.(last);
      if (done(last)) return last;
    } catch (err) {
      if (!isTransient(err) && !notYet(err)) throw err;
      lastError = err;
    }
    const left = deadline - Date.now();
    if (left <= 0) {
      const seen = lastError instanceof TasError ? `; last error: ${lastError.message}` : '';
      throw new PollTimeoutError(`${what} did not reach a final state in time${seen}`, last, lastError);
    }
    await pause(Math.min(interval, left), opts.signal);
  }
}

/** Polls GET /limit-order/{id} until `completed`, `failed` or `cancelled`. */
export function waitForOrder(
  client: TasClient,
  id: string,
  opts: PollOptions<LimitOrder> = {},
): Promise<LimitOrder> {
  return poll(
    `limit order ${id}`,
    () => client.getLimitOrder(id),
    (order) => LIMIT_ORDER_FINAL_STATUSES.includes(order.status),
    opts,
  );
}

/** Polls GET /dca-order/strategies/{id} until `finished` or `cancelled`. */
export function waitForStrategy(
  client: TasClient,
  id: string,
  opts: PollOptions<DcaStrategy> = {},
): Promise<DcaStrategy> {
  return poll(
    `DCA strategy ${id}`,
    () => client.getDcaStrategy(id),
    (strategy) => DCA_STRATEGY_FINAL_STATUSES.includes(strategy.status),
    opts,
  );
}

export interface TransferOutcome {
  outcome: 'success' | 'failure';
  status: TransferStatus;
}

/**
 * Polls POST /tx-status until the provider reports a success or failure value; 500 TX_STATUS_ERROR (no status
 * yet, expected right after the broadcast) and any other value mean in progress.
 */
export async function waitForTransfer(
  client: TasClient,
  query: { hash: string; chainId: number; dexHash: string },
  opts: PollOptions<TransferStatus> = {},
): Promise<TransferOutcome> {
  const status = await poll(
    `transfer ${query.hash}`,
    () => client.txStatus(query),
    (s) => TRANSFER_SUCCESS_STATUSES.includes(s.status) || TRANSFER_FAILURE_STATUSES.includes(s.status),
    opts,
    (err) => err instanceof TasError && err.code === 'TX_STATUS_ERROR',
  );
  return { outcome: TRANSFER_SUCCESS_STATUSES.includes(status.status) ? 'success' : 'failure', status };
}
