import {
  NotFoundError,
  PollTimeoutError,
  TasClient,
  waitForOrder,
  waitForStrategy,
  waitForTransfer,
  type LimitOrder,
} from '../../../sdk/src';

const CREDENTIALS = { apiKeyId: 'key', secretKey: 'secret', passphrase: 'passphrase' };

type Answer = { status: number; body: unknown } | 'network';

/** A client over a fetch that answers a script (the last entry repeats), recording the paths it was asked. */
function scriptedClient(script: Answer[]): { client: TasClient; asked: string[] } {
  const asked: string[] = [];
  const fetchImpl = async (input: string | URL | Request, init?: RequestInit): Promise<Response> => {
    const url = new URL(String(input));
    asked.push(`${init?.method} ${url.pathname}`);
    const next = script.length > 1 ? script.shift()! : script[0]!;
    if (next === 'network') throw new TypeError('fetch failed');
    return new Response(JSON.stringify(next.body), { status: next.status });
  };
  const client = new TasClient({
    baseUrl: 'http://api.test/api/v1',
    credentials: CREDENTIALS,
    fetch: fetchImpl as typeof fetch,
    retry: { maxAttempts: 1 },
  });
  return { client, asked };
}

const ok = (data: unknown): Answer => ({
  status: 200,
  body: { success: true, data, meta: { requestId: 'r', version: 'v1' } },
});
const fail = (status: number, code: string, message = 'x'): Answer => ({
  status,
  body: { success: false, error: { code, message, details: [] }, meta: { requestId: 'r', version: 'v1' } },
});
const order = (status: string, txHash = ''): Partial<LimitOrder> => ({ id: 'o1', status, txHash });

describe('waitForOrder', () => {
  it('reads until a final status, through transient failures, reporting every value read', async () => {
    const { client, asked } = scriptedClient([
      ok(order('pending')),
      'network',
      fail(503, 'SERVICE_UNAVAILABLE'),
      ok(order('executing')),
      ok(order('submitted')),
      ok(order('completed', '0xabc')),
    ]);
    const seen: string[] = [];
    const done = await waitForOrder(client, 'o1', { intervalMs: 1, onUpdate: (o) => seen.push(o.status) });
    expect(done).toEqual(order('completed', '0xabc'));
    expect(seen).toEqual(['pending', 'executing', 'submitted', 'completed']);
    expect(asked).toEqual(Array(6).fill('GET /api/v1/limit-order/o1'));
  });

  it.each(['failed', 'cancelled'])('stops at %s', async (status) => {
    const { client } = scriptedClient([ok(order('pending')), ok(order(status))]);
    await expect(waitForOrder(client, 'o1', { intervalMs: 1 })).resolves.toMatchObject({ status });
  });

  it('rejects at once on an error that says something about the order', async () => {
    const { client, asked } = scriptedClient([fail(404, 'NOT_FOUND', 'Limit order not found')]);
    await expect(waitForOrder(client, 'o1', { intervalMs: 1 })).rejects.toBeInstanceOf(NotFoundError);
    expect(asked).toHaveLength(1);
  });

  it('gives up at the deadline with the last value read', async () => {
    const { client } = scriptedClient([ok(order('pending'))]);
    const err = await waitForOrder(client, 'o1', { intervalMs: 5, timeoutMs: 40 }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(PollTimeoutError);
    expect(err).toMatchObject({
      code: 'POLL_TIMEOUT',
      status: 0,
      lastValue: order('pending'),
      message: 'POLL_TIMEOUT (no HTTP response): limit order o1 did not reach a final state in time',
    });
  });

  it('stops when its signal aborts', async () => {
    const { client } = scriptedClient([ok(order('pending'))]);
    const controller = new AbortController();
    setTimeout(() => controller.abort(new Error('user gave up')), 20);
    await expect(waitForOrder(client, 'o1', { intervalMs: 5, signal: controller.signal })).rejects.toThrow(
      'user gave up',
    );
  });
});

describe('waitForStrategy', () => {
  it('reads until finished or cancelled', async () => {
    const { client, asked } = scriptedClient([
      ok({ id: 's1', status: 'active' }),
      ok({ id: 's1', status: 'finished' }),
    ]);
    await expect(waitForStrategy(client, 's1', { intervalMs: 1 })).resolves.toEqual({
      id: 's1',
      status: 'finished',
    });
    expect(asked).toEqual(['GET /api/v1/dca-order/strategies/s1', 'GET /api/v1/dca-order/strategies/s1']);
  });
});

describe('waitForTransfer', () => {
  const query = { hash: '0xhash', chainId: 10, dexHash: 'tas-relay' };

  it('treats TX_STATUS_ERROR and unknown statuses as in progress, then reports success', async () => {
    const { client, asked } = scriptedClient([
      fail(500, 'TX_STATUS_ERROR', 'No status yet'),
      ok({ status: 'PENDING', detailStatus: 'WAITING' }),
      ok({ status: 'DONE', detailStatus: 'SUCCESS', toTxHash: '0xdest' }),
    ]);
    await expect(waitForTransfer(client, query, { intervalMs: 1 })).resolves.toEqual({
      outcome: 'success',
      status: { status: 'DONE', detailStatus: 'SUCCESS', toTxHash: '0xdest' },
    });
    expect(asked).toEqual(Array(3).fill('POST /api/v1/tx-status'));
  });

  it.each(['FAILURE', 'FAILED', 'failed', 'REFUND', 'Reverted', 'FROM_FAILURE', 'INVALID'])(
    'reports %s as a failure',
    async (status) => {
      const { client } = scriptedClient([ok({ status })]);
      await expect(waitForTransfer(client, query, { intervalMs: 1 })).resolves.toEqual({
        outcome: 'failure',
        status: { status },
      });
    },
  );

  it('keeps polling through TX_STATUS_ERROR until the deadline', async () => {
    const { client } = scriptedClient([fail(500, 'TX_STATUS_ERROR', 'No status yet')]);
    const err = await waitForTransfer(client, query, { intervalMs: 5, timeoutMs: 30 }).catch(
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(PollTimeoutError);
    expect(err).toMatchObject({
      lastValue: undefined,
      message:
        'POLL_TIMEOUT (no HTTP response): transfer 0xhash did not reach a final state in time; last error: ' +
        'TX_STATUS_ERROR (HTTP 500): No status yet (request id r)',
    });
  });
});
