import type { Logger } from '../shared/log/create-logger';
import type { KeeperMetrics, SetAsideKind, SetAsideReason } from './keeper-metrics';
import { isOutageError } from './watch/chain-availability';

/**
 * Runs `handle` on each row on its own: a row whose handling throws goes to `onThrow` and the loop goes on with the
 * next, so one row (an absurd value written past the api, a store write that failed) never stops a stage for the
 * rows of other makers. `onThrow` failing in turn is reported to `onThrowFailed`, never rethrown. With
 * `concurrency` above 1, up to that many rows are handled at once (rows whose handling waits on the node).
 */
export async function eachRow<T>(
  rows: Iterable<T>,
  handle: (row: T) => Promise<void> | void,
  onThrow: (row: T, err: unknown) => Promise<void> | void,
  onThrowFailed: (row: T, err: unknown) => void = () => undefined,
  concurrency = 1,
): Promise<void> {
  const one = async (row: T): Promise<void> => {
    try {
      await handle(row);
    } catch (err) {
      try {
        await onThrow(row, err);
      } catch (second) {
        onThrowFailed(row, second);
      }
    }
  };
  const iterator = rows[Symbol.iterator]();
  const worker = async (): Promise<void> => {
    for (let next = iterator.next(); !next.done; next = iterator.next()) await one(next.value);
  };
  await Promise.all(Array.from({ length: Math.max(1, concurrency) }, worker));
}

/**
 * `eachRow` for one chain's stages: a row that throws is set aside for this tick (a later tick tries it again),
 * with a warning naming it and the `tas_keeper_rows_set_aside_total` counter, then handed to the caller's
 * `onThrow`; `setAside` does the same for a row a stage recognised as one it cannot handle. A throw that says the
 * chain is unreachable is no fault of the row: it is reported to `onOutage` and the row simply waits. Nor is one
 * that says the store is: `storeFailed` records it (true for such a throw) and the row waits for the store.
 */
export class RowGuard {
  constructor(
    private readonly chainId: number,
    private readonly metrics: KeeperMetrics,
    private readonly log: Logger,
    private readonly onOutage: () => void = () => undefined,
    private readonly storeFailed: (err: unknown) => boolean = () => false,
  ) {}

  each<T>(
    kindOf: SetAsideKind | ((row: T) => SetAsideKind),
    rows: Iterable<T>,
    idOf: (row: T) => string,
    handle: (row: T) => Promise<void> | void,
    onThrow?: (row: T, err: unknown) => Promise<void> | void,
    concurrency = 1,
  ): Promise<void> {
    return eachRow(
      rows,
      handle,
      async (row, err) => {
        const kind = typeof kindOf === 'function' ? kindOf(row) : kindOf;
        if (isOutageError(err)) {
          this.onOutage();
          this.log.debug({ err, kind, id: idOf(row) }, 'row waits: the chain is unreachable');
          return;
        }
        if (this.storeFailed(err)) {
          this.log.debug({ err, kind, id: idOf(row) }, 'row waits: the store is unreachable');
          return;
        }
        this.setAside(kind, idOf(row), 'ERROR', err);
        await onThrow?.(row, err);
      },
      (row, err) => {
        if (!this.storeFailed(err)) this.log.error({ err, id: idOf(row) }, 'setting a row aside failed too');
      },
      concurrency,
    );
  }

  setAside(kind: SetAsideKind, id: string, reason: SetAsideReason, detail: unknown): void {
    this.metrics.rowSetAside(this.chainId, kind, reason);
    const err = detail instanceof Error ? detail : undefined;
    // A value known not to execute is the row's; a throw nobody foresaw is ours to look at.
    this.log[reason === 'ERROR' ? 'error' : 'warn'](
      { kind, id, reason, ...(err ? { err } : { detail: String(detail) }) },
      'row set aside: the stage goes on without it',
    );
  }
}
