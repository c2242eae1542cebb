import { newAccountClient, rawRequest } from '../helpers/api-client';
import { startApiOn } from '../helpers/api-harness';

/**
 * Every endpoint of the spec is documented in /openapi.json, served ones and (were there any) ones not served yet.
 * POST /tx-status was the last documented before it was served: it is listed once and now answers a signed request
 * itself (here without a cross-chain provider, so no dexHash is known: a 400 on the field, not a 404).
 */
describe('a documented endpoint', () => {
  let running: Awaited<ReturnType<typeof startApiOn>>;
  beforeAll(async () => {
    running = await startApiOn('sqlite');
  });
  afterAll(async () => running?.close());

  it('is listed in /openapi.json once it is served, and answers a signed request', async () => {
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
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({
      success: false,
      error: {
        code: 'VALIDATION_ERROR',
        message: 'Invalid request body',
        details: [
          {
            field: 'dexHash',
            message: 'Must be the dexHash of a cross-chain swap (no cross-chain provider is enabled)',
          },
        ],
      },
    });
  });
});
