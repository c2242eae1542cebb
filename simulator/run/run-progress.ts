/** What the run reports while it runs, for the terminal. */
export interface RunProgress {
  block: number;
  blocks: number;
  /** Current target price of each market, "1:WETH/USDC 2890.12". */
  prices: string[];
  placed: number;
  filled: number;
  failed: number;
  elapsedSeconds: number;
}

/**
 * One line per update: on a terminal the line is rewritten in place (a one-screen run), elsewhere (CI logs, pipes)
 * a line is printed at most every `everyMs`, plus the last one.
 */
export function progressPrinter(
  stream: NodeJS.WriteStream,
  everyMs = 2_000,
): { update(p: RunProgress): void; line(text: string): void; done(): void } {
  let last = 0;
  let pending = false;
  const format = (p: RunProgress): string => {
    const percent = Math.floor((p.block / Math.max(1, p.blocks)) * 100);
    const rate = p.block > 0 ? p.elapsedSeconds / p.block : 0;
    const eta = Math.round(rate * (p.blocks - p.block));
    return (
      `block ${p.block}/${p.blocks} (${percent}%) | ${p.prices.join(' | ')} | placed ${p.placed} | ` +
      `filled ${p.filled} | failed ${p.failed} | ${p.elapsedSeconds.toFixed(0)} s, ~${eta} s left`
    );
  };
  return {
    update(p) {
      const now = Date.now();
      const final = p.block >= p.blocks;
      if (stream.isTTY) {
        if (now - last < 100 && !final) return;
        last = now;
        stream.write(`\r\x1b[2K${format(p).slice(0, (stream.columns || 120) - 1)}`);
        pending = true;
        return;
      }
      if (now - last < everyMs && !final) return;
      last = now;
      stream.write(`${format(p)}\n`);
    },
    line(text) {
      if (pending) stream.write('\n');
      pending = false;
      stream.write(`${text}\n`);
    },
    done() {
      if (pending) stream.write('\n');
      pending = false;
    },
  };
}
