import { newAccountClient, rawRequest } from '../helpers/api-client';
import { startApiOn } from '../helpers/api-harness';

/** An endpoint of the spec that is documented before it is served: in /openapi.json, and a 404 like any path. */
describe('a documented endpoint not served yet', () => {
  let running: Awaited<ReturnType<typeof startApiOn>>;
  beforeAll(async () => {
    running = await startApiOn('sqlite');
  });
  afterAll(async () => running?.close());

  it('is listed in /openapi.json and answers a signed request with 404 NOT_FOUND', async () => {
    const spec = await rawRequest<{ paths: Record<string, Record<string, unknown>> }>(
      running.baseUrl,
      'GET',
      '/openapi.json',
    );
    expect(Object.keys(spec.body.paths['/tx-status'] ?? {})).toEqual(['post']);

    const client = await newAccountClient(running.baseUrl);
    const res = await client.post('/tx-status', {
      hash: `0x${'f'.repeat(64)}`,
      chainId: 1,
      dexHash: '0xabc',
    });
    expect(res.status).toBe(404);
    expect(res.body).toMatchObject({
      success: false,
      error: { code: 'NOT_FOUND', message: 'No route for POST /api/v1/tx-status' },
    });
  });
});
