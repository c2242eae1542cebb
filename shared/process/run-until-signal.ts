/**
 * The one lifecycle of every process (api, keeper, embedded, devnet): start the parts, run until SIGINT or
 * SIGTERM, then stop them in reverse order, each finishing its in-flight work first, within a bounded time.
 *
 * Exit codes: 0 after a clean stop; 1 after a failed start, a failed stop, an expired grace period or a forced
 * stop.
 */

/** How long the parts may take to finish their in-flight work once a signal came (under Kubernetes' 30 s default). */
export const SHUTDOWN_GRACE_MS = 25_000;

/**
 * A repeat of a signal within this time is the same request, not an operator insisting: Ctrl-C under `npm run`
 * reaches npm, tsx and the script alike, and npm and tsx each pass it on, so the script sees it two or three times.
 */
export const REPEATED_SIGNAL_WINDOW_MS = 1_000;

const SIGNALS = ['SIGINT', 'SIGTERM'] as const;

/** The few logger methods shutdown uses (a pino logger fits). */
export interface ShutdownLog {
  info(fields: object, message: string): void;
  warn(fields: object, message: string): void;
  error(fields: object, message: string): void;
}

export interface Lifecycle {
  /**
   * Registers how to stop a part once it runs (or once its start settles: the stop may await it). On a signal the
   * parts stop newest first; a stop registered while stopping is run too.
   */
  onStop(stop: () => Promise<void>): void;
  /** Shutdown messages go to this logger from now on (before it exists, to stderr). */
  useLog(log: ShutdownLog): void;
  /** True once a signal came: a start still running can return early instead of starting more parts. */
  readonly stopping: boolean;
}

export interface RunOptions {
  /** Opens the one line a failed start prints on stderr: `api failed to start` gives `api failed to start: why`. */
  failedToStart: string;
  /** Default SHUTDOWN_GRACE_MS. */
  graceMs?: number;
}

const messageOf = (err: unknown): string => (err instanceof Error ? err.message : String(err));

/** Until the process has its logger: one plain line on stderr per message. */
const STDERR_LOG: ShutdownLog = {
  info: (_fields, message) => console.warn(message),
  warn: (_fields, message) => console.warn(message),
  error: (fields, message) => {
    const err = (fields as { err?: unknown }).err;
    console.error(err === undefined ? message : `${message}: ${messageOf(err)}`);
  },
};

/**
 * Runs `start` (which starts the parts and registers their stops), then waits for SIGINT or SIGTERM. A failed
 * start prints one line, stops what already runs and exits 1; a start that fails after a signal is the stop's to
 * report (Ctrl-C reaches child processes such as the devnet's chains too).
 */
export function runUntilSignal(start: (life: Lifecycle) => Promise<void>, options: RunOptions): void {
  const graceMs = options.graceMs ?? SHUTDOWN_GRACE_MS;
  const stops: Array<() => Promise<void>> = [];
  let log: ShutdownLog = STDERR_LOG;
  let stopping = false;
  let firstSignalAt = 0;

  /** Stops every registered part, newest first, even after one failed; true when all stopped cleanly. */
  const stopAll = async (): Promise<boolean> => {
    let clean = true;
    for (let stop = stops.pop(); stop; stop = stops.pop()) {
      try {
        await stop();
      } catch (err) {
        clean = false;
        log.error({ err }, 'shutdown failed');
      }
    }
    return clean;
  };

  /** Stops within the grace period, then exits: no part's stray timer or socket can keep a stopped process up. */
  const shutDown = (exitCode: number): void => {
    stopping = true;
    // Not unref'd: were a stop to wait on a promise nothing settles, the process must not end early with code 0.
    setTimeout(() => {
      log.error({ graceMs }, 'shutdown did not finish within the grace period; exiting with work unfinished');
      process.exit(1);
    }, graceMs);
    void stopAll().then((clean) => process.exit(clean ? exitCode : 1));
  };

  const onSignal = (signal: NodeJS.Signals): void => {
    const now = Date.now();
    if (!stopping) {
      firstSignalAt = now;
      log.info({ signal }, 'shutting down: finishing the work in flight');
      shutDown(0);
      return;
    }
    if (now - firstSignalAt < REPEATED_SIGNAL_WINDOW_MS) return;
    log.warn({ signal }, 'second signal: exiting without waiting for the work in flight');
    process.exit(1);
  };
  for (const signal of SIGNALS) process.on(signal, onSignal);

  const life: Lifecycle = {
    onStop: (stop) => void stops.push(stop),
    useLog: (logger) => void (log = logger),
    get stopping() {
      return stopping;
    },
  };
  start(life).catch((err: unknown) => {
    if (stopping) return;
    console.error(`${options.failedToStart}: ${messageOf(err)}`);
    shutDown(1);
  });
}
