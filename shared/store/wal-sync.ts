import { open } from 'node:fs/promises';

/**
 * `fdatasync` of a SQLite database's WAL file on libuv's thread pool: what `synchronous = FULL` adds to a commit in
 * WAL mode (SQLite then syncs the WAL after each commit), done off the event loop. A commit at `synchronous =
 * NORMAL` followed by `sync()` is as durable as one at FULL once `sync()` resolves; meanwhile the event loop serves
 * other requests instead of waiting on the disk.
 *
 * Callers share syncs: a sync under way may have started before a caller's commit reached the file, so a caller
 * arriving then waits for the next sync, which starts when the current one ends and serves every caller that
 * arrived in between (one `fdatasync` for a whole group of commits).
 *
 * Frames overwritten between a commit and its sync need none: SQLite reuses the WAL only after a checkpoint has
 * copied every frame into the database file and synced that file.
 */
export class WalSync {
  private running: Promise<void> | undefined;
  private queued: Promise<void> | undefined;

  constructor(private readonly walPath: string) {}

  /** Resolves once everything written to the WAL before the call is on disk. */
  sync(): Promise<void> {
    if (!this.running) return this.start();
    const next = () => {
      this.queued = undefined;
      return this.start();
    };
    return (this.queued ??= this.running.then(next, next));
  }

  private start(): Promise<void> {
    const run = this.flush();
    this.running = run;
    const clear = () => {
      if (this.running === run) this.running = undefined;
    };
    run.then(clear, clear);
    return run;
  }

  private async flush(): Promise<void> {
    try {
      // Opened for each sync: the file SQLite writes now, whatever happened to the WAL since the last one.
      const file = await open(this.walPath, 'r');
      try {
        await file.datasync();
      } finally {
        await file.close();
      }
    } catch (err) {
      // What SQLite itself reports when a commit's sync fails: the store's disk failed (isStoreUnreachable).
      throw Object.assign(new Error(`SQLite WAL sync failed: ${(err as Error).message}`), {
        code: 'SQLITE_IOERR_FSYNC',
        cause: err,
      });
    }
  }
}
