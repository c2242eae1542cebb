import path from 'node:path';
import { Worker } from 'node:worker_threads';
import type { Knex } from 'knex';
import { SQLITE_FILE_NAME } from './create-knex';

/** How often the checkpointer copies the WAL back into the database file. */
export const CHECKPOINT_INTERVAL_MS = 100;
/**
 * The store connection's own automatic checkpoint, in WAL pages, while a checkpointer runs: a safety net only (the
 * checkpointer keeps the WAL far smaller), so the event loop never stops to copy pages unless the checkpointer is
 * gone.
 */
export const FALLBACK_AUTOCHECKPOINT_PAGES = 10_000;

const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const Database = require(workerData.driver);
const db = new Database(workerData.file, { fileMustExist: true });
// A checkpoint that would wait for the writer gives up at once and runs on the next tick.
db.pragma('busy_timeout = 0');
const timer = setInterval(() => {
  try {
    db.pragma('wal_checkpoint(PASSIVE)');
  } catch {}
}, workerData.intervalMs);
parentPort.on('message', () => {
  clearInterval(timer);
  db.close();
  parentPort.close();
});
`;

/**
 * SQLite's WAL checkpoints on a worker thread. With the default automatic checkpoint the connection that commits
 * the 1000th WAL page copies the WAL into the database file there and then, inside a request (the nonce of a signed
 * request is a commit): about half the time of a write. A PASSIVE checkpoint from another connection, every
 * CHECKPOINT_INTERVAL_MS, does that work off the event loop without blocking any writer or reader; the store's own
 * connection keeps a far larger automatic checkpoint as a safety net.
 */
export class WalCheckpointer {
  private readonly exited: Promise<void>;
  private gone = false;

  private constructor(private readonly worker: Worker) {
    this.exited = new Promise((resolve) =>
      worker.once('exit', () => {
        this.gone = true;
        resolve();
      }),
    );
  }

  static async start(knex: Knex, dataDir: string): Promise<WalCheckpointer> {
    const worker = new Worker(WORKER_SOURCE, {
      eval: true,
      workerData: {
        driver: require.resolve('better-sqlite3'),
        file: path.join(dataDir, SQLITE_FILE_NAME),
        intervalMs: CHECKPOINT_INTERVAL_MS,
      },
    });
    // It must not keep a process alive, and its failure must not stop one: the safety net then checkpoints.
    worker.unref();
    worker.on('error', () => undefined);
    await knex.raw(`pragma wal_autocheckpoint = ${FALLBACK_AUTOCHECKPOINT_PAGES}`);
    return new WalCheckpointer(worker);
  }

  /** Closes the worker's connection; resolves at once when the worker is already gone. */
  async stop(): Promise<void> {
    if (!this.gone) this.worker.postMessage('stop');
    await this.exited;
  }
}
