import { Writable } from 'node:stream';
import { buildApi, type ApiInstance } from '../../api/build-api';
import { createLogger } from '../../shared/log/create-logger';
import { ApiClient, newAccountClient, rawRequest } from '../helpers/api-client';
import { testConfig } from '../helpers/api-harness';
import { createStoreTarget, describeEachStore, type StoreTarget } from '../helpers/store-targets';

describeEachStore('logs and metrics', (kind) => {
  let target: StoreTarget;
  let api: ApiInstance;
  let baseUrl: string;
  let adminUrl: string;
  let client: ApiClient;
  const lines: string[] = [];

  beforeAll(async () => {
    target = await createStoreTarget(kind);
    const sink = new Writable({
      write(chunk: Buffer, _enc, done) {
        lines.push(...chunk.toString('utf8').split('\n').filter(Boolean));
        done();
      },
    });
    api = await buildApi(testConfig(target), { log: createLogger('trace', 'api', sink) });
    ({ baseUrl, adminUrl } = await api.listen());
    client = await newAccountClient(baseUrl, 'observed-account');
  });
  afterAll(async () => {
    await api?.close();
    await target?.cleanup();
  });

  it('logs one JSON line per request with its request id, and never a credential', async () => {
    const res = await client.get('/chains');
    const requestId = res.headers.get('apigw-requestid');
    await rawRequest(baseUrl, 'GET', '/chains', {
      headers: {
        'x-api-key-id': client.credentials.apiKey,
        'x-value-info': 'bad',
        'x-passphrase': 'p',
        'x-signature': 's',
      },
    });
    const access = lines
      .map((l) => JSON.parse(l) as Record<string, unknown>)
      .find((l) => l.requestId === requestId);
    expect(access).toMatchObject({ msg: 'request', route: '/api/v1/chains', method: 'GET', status: '200' });
    const all = lines.join('\n');
    expect(all).not.toContain(client.credentials.secretKey);
    expect(all).not.toContain(client.credentials.passphrase);
  });

  it('serves Prometheus metrics by route template and /healthz on the admin port', async () => {
    await client.get('/limit-order/00000000-0000-4000-8000-000000000000');
    const metrics = await (await fetch(`${adminUrl}/metrics`)).text();
    expect(metrics).toMatch(
      /tas_api_http_requests_total\{route="\/api\/v1\/limit-order\/:id",method="GET",status="404"\} [1-9]/,
    );
    expect(metrics).toContain(
      'tas_api_http_request_duration_seconds_bucket{le="0.005",route="/api/v1/chains"',
    );
    expect(metrics).toContain('tas_api_unhandled_errors_total 0');
    const health = await fetch(`${adminUrl}/healthz`);
    expect(health.status).toBe(200);
    expect(await health.json()).toEqual({ status: 'ok' });
  });
});
