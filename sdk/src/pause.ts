/** Why an aborted wait ends: the signal's reason, or a plain `aborted` error. */
export function abortReason(signal: AbortSignal): unknown {
  return signal.reason ?? new Error('aborted');
}

/** Waits `ms`, or rejects with the abort reason as soon as `signal` aborts. */
export function pause(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(abortReason(signal));
    const onAbort = (): void => {
      clearTimeout(timer);
      reject(abortReason(signal!));
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}
