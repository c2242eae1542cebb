import { ApiClient, newAccountClient, rawRequest, type Envelope } from '../helpers/api-client';
import { startApiOn } from '../helpers/api-harness';
import { describeEachStore } from '../helpers/store-targets';
import { createAccount } from '../factories/accounts';

describeEachStore('accounts, chains, tokens, support-chain', (kind) => {
  let running: Awaited<ReturnType<typeof startApiOn>>;
  let client: ApiClient;

  beforeAll(async () => {
    running = await startApiOn(kind);
    client = await newAccountClient(running.baseUrl);
  });
  afterAll(async () => running?.close());

  it('creates an account whose credentials sign requests', async () => {
    const res = await client.get<{ chainIds: number[] }>('/chains');
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual({ chainIds: [1, 10, 56, 137, 8453, 42161, 43114, 59144] });
    expect(res.body.meta).toEqual({
      requestId: res.headers.get('apigw-requestid'),
      version: 'v1',
      accountType: 'integrator',
      apiKeyId: client.credentials.apiKey,
    });
  });

  it('rejects a short name with a field detail', async () => {
    const res = await rawRequest<Envelope>(running.baseUrl, 'POST', '/accounts', {
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'abc', password: 'password1' }),
    });
    expect(res.status).toBe(400);
    expect(res.body.error).toEqual({
      code: 'VALIDATION_ERROR',
      message: 'Invalid request body',
      details: [{ field: 'name', message: 'Must be at least 6 characters' }],
    });
  });

  it('refuses a password no header can carry as sent, and accepts a Latin-1 one that signs', async () => {
    const message =
      'Must be printable ASCII or Latin-1 characters, without spaces at either end (it is sent in the x-passphrase header)';
    for (const password of [
      'pass\u20acword-1',
      ' leading-space',
      'trailing-space ',
      'tab\tinside-1',
      'emoji-\u{1f600}-pw',
    ]) {
      const res = await rawRequest<Envelope>(running.baseUrl, 'POST', '/accounts', {
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ name: 'password-tester', password }),
      });
      expect({ password, status: res.status, error: res.body.error }).toEqual({
        password,
        status: 400,
        error: {
          code: 'VALIDATION_ERROR',
          message: 'Invalid request body',
          details: [{ field: 'password', message }],
        },
      });
    }
    const latin1 = new ApiClient(
      running.baseUrl,
      await createAccount(running.baseUrl, { password: 'p\u00e4ss w\u00f6rd-\u00a7' }),
    );
    expect((await latin1.get('/chains')).status).toBe(200);
  });
});
