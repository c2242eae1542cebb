/** The error a run throws when its signal aborts it. */
export class RunInterrupted extends Error {
  constructor() {
    super('the run was interrupted');
    this.name = 'RunInterrupted';
  }
}

/**
 * Resolves as `work` does, or rejects with RunInterrupted as soon as `signal` aborts, so the caller's cleanup (stopping
 * the chains) runs at once; `work`'s own later failure, against stopped chains, is then ignored.
 */
export function interruptible<T>(work: Promise<T>, signal: AbortSignal | undefined): Promise<T> {
  if (!signal) return work;
  if (signal.aborted) {
    work.catch(() => undefined);
    return Promise.reject(new RunInterrupted());
  }
  return new Promise<T>((resolve, reject) => {
    const onAbort = (): void => {
      work.catch(() => undefined);
      reject(new RunInterrupted());
    };
    signal.addEventListener('abort', onAbort, { once: true });
    work.then(
      (value) => {
        signal.removeEventListener('abort', onAbort);
        resolve(value);
      },
      (err: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(err);
      },
    );
  });
}
