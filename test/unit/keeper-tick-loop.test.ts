import { setTimeout as sleep } from 'node:timers/promises';
import { TickLoop } from '../../keeper/tick-loop';

/** A tick that counts its runs and concurrent runs, and finishes when the test says so. */
function gatedTick() {
  const state = { runs: 0, active: 0, maxActive: 0, release: [] as Array<() => void> };
  const tick = async (): Promise<void> => {
    state.runs++;
    state.active++;
    state.maxActive = Math.max(state.maxActive, state.active);
    await new Promise<void>((resolve) => state.release.push(resolve));
    state.active--;
  };
  const finishAll = () => state.release.splice(0).forEach((r) => r());
  return { state, tick, finishAll };
}

describe('TickLoop: the keeper loops (interval, wake on a new block, stop)', () => {
  it('runs at once when woken instead of waiting out the interval', async () => {
    const { state, tick, finishAll } = gatedTick();
    const loop = new TickLoop(tick, 60_000, () => undefined);
    loop.start();
    await sleep(20);
    expect(state.runs).toBe(0);
    loop.wake();
    await sleep(20);
    expect(state.runs).toBe(1);
    finishAll();
    await loop.stop();
  });

  it('never runs twice at a time; a wake during a run starts the next right after it, once', async () => {
    const { state, tick, finishAll } = gatedTick();
    const loop = new TickLoop(tick, 60_000, () => undefined);
    loop.start();
    loop.wake();
    await sleep(20);
    loop.wake();
    loop.wake();
    await sleep(20);
    expect([state.runs, state.active]).toEqual([1, 1]);
    finishAll();
    await sleep(20);
    expect(state.runs).toBe(2);
    finishAll();
    await sleep(20);
    expect(state.runs).toBe(2);
    expect(state.maxActive).toBe(1);
    await loop.stop();
  });

  it('runs every interval, reports a failed run and goes on, and stop waits for the run in progress', async () => {
    const errors: unknown[] = [];
    let runs = 0;
    let finished = 0;
    const loop = new TickLoop(
      async () => {
        runs++;
        if (runs === 1) throw new Error('boom');
        await sleep(30);
        finished++;
      },
      10,
      (err) => errors.push(err),
    );
    loop.start();
    await sleep(60);
    expect(runs).toBeGreaterThanOrEqual(2);
    expect(errors).toEqual([new Error('boom')]);
    await loop.stop();
    expect(finished).toBe(runs - 1);
    const after = runs;
    loop.wake();
    await sleep(40);
    expect(runs).toBe(after);
  });

  it('runNow runs once after the run in flight, never beside it, and resolves when its own run ends', async () => {
    const { state, tick, finishAll } = gatedTick();
    const loop = new TickLoop(tick, 60_000, () => undefined);
    loop.start();
    loop.wake();
    await sleep(20);
    expect(state.runs).toBe(1);
    let done = false;
    const stepped = loop.runNow().then(() => (done = true));
    await sleep(20);
    // Still the first run: runNow waits for it.
    expect([state.runs, state.active, done]).toEqual([1, 1, false]);
    finishAll();
    await sleep(20);
    expect([state.runs, state.active, done]).toEqual([2, 1, false]);
    finishAll();
    await stepped;
    expect([state.runs, state.active, state.maxActive]).toEqual([2, 0, 1]);
    await loop.stop();
  });

  it('runNow on a stopped loop runs nothing', async () => {
    const { state, tick } = gatedTick();
    const loop = new TickLoop(tick, 60_000, () => undefined);
    await loop.runNow();
    expect(state.runs).toBe(0);
  });
});
