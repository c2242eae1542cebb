import { GatewayError } from '../../api/gateway/gateway-error';
import { RequestDeadlines } from '../../api/gateway/timeout';

const wait = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** A request's work that ends when told to. */
function work(): { promise: Promise<void>; finish(): void; fail(err: Error): void } {
  let finish!: () => void;
  let fail!: (err: Error) => void;
  const promise = new Promise<void>((resolve, reject) => {
    finish = resolve;
    fail = reject;
  });
  return { promise, finish, fail };
}

describe('the gateway timeout (one timer for every request under way)', () => {
  it('passes on what work ends with before its deadline, and answers the 503 for work still running at it', async () => {
    const deadlines = new RequestDeadlines(80);
    const fast = work();
    const failing = work();
    const slow = work();
    const late: unknown[] = [];
    const outcomes = [fast, failing, slow].map((w) =>
      deadlines
        .within(w.promise, (err) => late.push(err))
        .then(
          () => 'done',
          (err: unknown) => err,
        ),
    );
    fast.finish();
    failing.fail(new Error('handler failed'));
    const [a, b] = await Promise.all(outcomes.slice(0, 2));
    expect(a).toBe('done');
    expect((b as Error).message).toBe('handler failed');

    const c = await outcomes[2];
    expect(c).toBeInstanceOf(GatewayError);
    expect(c).toMatchObject({ status: 503, message: 'Service Unavailable' });
    // The handler still runs; what it fails with afterwards is reported, not lost.
    slow.fail(new Error('too late'));
    await wait(0);
    expect(late).toEqual([new Error('too late')]);
  });

  it('expires each request at its own deadline, whatever ended in between', async () => {
    const deadlines = new RequestDeadlines(120);
    const started = performance.now();
    const first = work();
    const firstOutcome = deadlines.within(first.promise, () => undefined).catch((err: unknown) => err);
    await wait(60);
    const middle = work();
    const middleOutcome = deadlines.within(middle.promise, () => undefined).then(() => 'done');
    const last = work();
    const lastOutcome = deadlines
      .within(last.promise, () => undefined)
      .catch(() => performance.now() - started);
    middle.finish();
    expect(await middleOutcome).toBe('done');
    expect(await firstOutcome).toBeInstanceOf(GatewayError);
    // The last started 60 ms after the first: it is not expired with the first.
    const lastExpiredAt = await lastOutcome;
    expect(lastExpiredAt).toBeGreaterThanOrEqual(175);
  });

  it('keeps serving after the list ran empty', async () => {
    const deadlines = new RequestDeadlines(40);
    const one = work();
    one.finish();
    await deadlines.within(one.promise, () => undefined);
    await wait(60);
    const two = work();
    await expect(deadlines.within(two.promise, () => undefined)).rejects.toMatchObject({ status: 503 });
    const three = work();
    three.finish();
    await expect(deadlines.within(three.promise, () => undefined)).resolves.toBeUndefined();
  });
});
