import { randomBytes, randomUUID } from 'node:crypto';
import { statSync } from 'node:fs';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { AccountAuthenticator, NONCE_TTL_MS } from '../../api/gateway/account-authenticator';
import { StoreNonceLedger } from '../../api/gateway/nonce-ledger';
import { loadMasterKey, MASTER_KEY_FILE } from '../../shared/signing/master-key';
import { SecretBox } from '../../shared/signing/secret-box';
import { buildApi, type ApiInstance } from '../../api/build-api';
import { ENV_DEFAULTS } from '../../shared/config/load-config';
import { AccountsRepository, type AccountRecord } from '../../shared/store/repositories/accounts-repository';
import { TokensRepository, type TokenRecord } from '../../shared/store/repositories/tokens-repository';
import { openStore, type Store } from '../../shared/store/store';
import { canonicalQuery } from '../../shared/signing/canonical-query';
import {
  EMPTY_BODY_HASH,
  bodyHashOf,
  encodeValueInfo,
  hmacHex,
  signRequest,
  signedMessage,
  type Credentials,
} from '../../shared/signing/request-signature';
import {
  ApiClient,
  newAccountClient,
  rawRequest,
  type ApiResponse,
  type Envelope,
} from '../helpers/api-client';
import { startApi, startApiOn, testConfig, type RunningApi } from '../helpers/api-harness';
import { requestFrom, type PlainResponse } from '../helpers/request-from';
import { describeEachStore } from '../helpers/store-targets';

const UNAUTHORIZED = '{"message":"Unauthorized"}';
const FORBIDDEN = '{"message":"Forbidden"}';
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const CACHE_TTL_MS = 300;

interface SignParts {
  method: string;
  path: string;
  rawQuery?: string;
  bodyHash: string;
  timestamp?: string;
  nonce?: string;
}

/** Signs from explicit parts, for requests signClient cannot express (a GET with a body hash, a bad nonce). */
function signParts(credentials: Credentials, parts: SignParts): Record<string, string> {
  const timestamp = parts.timestamp ?? String(Math.floor(Date.now() / 1000));
  const nonce = parts.nonce ?? randomBytes(12).toString('hex');
  const signature = hmacHex(
    credentials.secretKey,
    signedMessage({
      timestamp,
      nonce,
      method: parts.method,
      path: parts.path,
      query: canonicalQuery(parts.rawQuery ?? ''),
      bodyHash: parts.bodyHash,
    }),
  );
  return {
    'content-type': 'application/json',
    'x-api-key-id': credentials.apiKey,
    'x-value-info': encodeValueInfo(timestamp, nonce, parts.bodyHash),
    'x-passphrase': credentials.passphrase,
    'x-signature': signature,
  };
}

/** Headers and body bytes for one request to `pathAndQuery` (relative to /api/v1). */
function signFor(credentials: Credentials, method: string, pathAndQuery: string, body?: unknown) {
  return signRequest(credentials, { method, url: `/api/v1${pathAndQuery}`, body });
}

function withoutContentType(headers: Record<string, string>): Record<string, string> {
  const copy = { ...headers };
  delete copy['content-type'];
  return copy;
}

/** node:http, because fetch refuses a GET with a body. */
function httpRequest(
  baseUrl: string,
  method: string,
  pathAndQuery: string,
  headers: Record<string, string>,
  body?: string,
): Promise<PlainResponse> {
  return requestFrom('127.0.0.1', baseUrl, method, pathAndQuery, headers, body);
}

function expectBare(res: ApiResponse<unknown>, status: number, text: string): void {
  expect({ status: res.status, text: res.text }).toEqual({ status, text });
  expect(res.headers.get('content-type')).toMatch(/^application\/json/);
  expect(res.headers.get('apigw-requestid')).toMatch(UUID);
}

function expectEnvelopeError(
  res: ApiResponse<Envelope>,
  status: number,
  code: string,
  message: string,
  signedBy?: string,
): void {
  expect(res.status).toBe(status);
  expect(res.body).toEqual({
    success: false,
    error: { code, message, details: [] },
    meta: {
      requestId: res.headers.get('apigw-requestid'),
      version: 'v1',
      ...(signedBy ? { accountType: 'integrator', apiKeyId: signedBy } : {}),
    },
  });
  expect(res.headers.get('apigw-requestid')).toMatch(UUID);
}

/** Tokens that answer slowly: a route that outlives the gateway timeout without any test hook in the api. */
class SlowTokensRepository extends TokensRepository {
  readonly pending = new Set<Promise<unknown>>();
  constructor(
    knex: Store['knex'],
    private readonly delayMs: number,
  ) {
    super(knex);
  }
  override listByChain(chainId: number): Promise<TokenRecord[]> {
    const work = sleep(this.delayMs).then(() => super.listByChain(chainId));
    this.pending.add(work);
    void work.finally(() => this.pending.delete(work)).catch(() => undefined);
    return work;
  }
}

/** What mysql2 throws when the store's server refuses the connection (down, restarting). */
const STORE_REFUSED = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:3306'), {
  code: 'ECONNREFUSED',
  fatal: true,
});
const STORE_GONE_NAME = 'store-gone-tester';

/**
 * Accounts whose writes fail with an error carrying internals (or, for STORE_GONE_NAME, with the store refusing
 * the connection), and whose reads fail for one key.
 */
class FailingAccountsRepository extends AccountsRepository {
  constructor(
    knex: Store['knex'],
    private readonly unreadableKey: string,
  ) {
    super(knex);
  }
  override async insert(account: AccountRecord): Promise<void> {
    if (account.name === STORE_GONE_NAME) throw STORE_REFUSED;
    throw new Error('ER_SECRET_TABLE: connection to db-internal-7.example failed (password=hunter2)');
  }
  override async findByApiKey(apiKey: string): Promise<AccountRecord | undefined> {
    if (apiKey === this.unreadableKey) throw new Error('store unavailable');
    return super.findByApiKey(apiKey);
  }
}

describeEachStore('gateway', (kind) => {
  let running: RunningApi & { target: Awaited<ReturnType<typeof startApiOn>>['target'] };
  let client: ApiClient;
  let baseUrl: string;
  const requestIds = new Set<string>();

  const send = async (
    method: string,
    pathAndQuery: string,
    headers: Record<string, string>,
    body?: string | Buffer,
  ) => {
    const res = await rawRequest<Envelope>(baseUrl, method, pathAndQuery, { headers, body });
    const id = res.headers.get('apigw-requestid');
    if (id) requestIds.add(id);
    return res;
  };
  const sendSigned = (
    method: string,
    pathAndQuery: string,
    signed: { headers: Record<string, string>; bodyString: string },
  ) => send(method, pathAndQuery, signed.headers, signed.bodyString === '' ? undefined : signed.bodyString);

  beforeAll(async () => {
    running = await startApiOn(kind, { ACCOUNT_CACHE_TTL_MS: String(CACHE_TTL_MS) });
    baseUrl = running.baseUrl;
    client = await newAccountClient(baseUrl, 'gateway-tester');
  });
  afterAll(async () => running?.close());

  describe('request ids and meta', () => {
    it('puts the request id of a signed success in the header and in meta, with the account fields', async () => {
      const res = await sendSigned('GET', '/chains', signFor(client.credentials, 'GET', '/chains'));
      expect(res.status).toBe(200);
      expect(res.body.meta).toEqual({
        requestId: res.headers.get('apigw-requestid'),
        version: 'v1',
        accountType: 'integrator',
        apiKeyId: client.credentials.apiKey,
      });
      expect(res.body.meta.requestId).toMatch(UUID);
    });

    it('gives POST /accounts meta without accountType and apiKeyId, and the secret only in the answer', async () => {
      const res = await send(
        'POST',
        '/accounts',
        { 'content-type': 'application/json' },
        '{"name":"meta-tester","password":"pass-word-1"}',
      );
      expect(res.status).toBe(200);
      expect(res.body.meta).toEqual({ requestId: res.headers.get('apigw-requestid'), version: 'v1' });
      const data = res.body.data as { apiKey: string; secretKey: string; message: string };
      expect(Object.keys(data).sort()).toEqual(['apiKey', 'message', 'secretKey']);
      expect(data.apiKey).toMatch(UUID);
      // 32 CSPRNG bytes, base64url.
      expect(data.secretKey).toMatch(/^[A-Za-z0-9_-]{43}$/);
    });

    it('gives every response its own request id, gateway answers included', async () => {
      const before = requestIds.size;
      const ids = new Set<string>();
      for (let i = 0; i < 5; i++) {
        for (const res of [
          await send('GET', '/chains', {}),
          await sendSigned('GET', '/chains', signFor(client.credentials, 'GET', '/chains')),
          await send('GET', '/nowhere', {}),
        ]) {
          ids.add(res.headers.get('apigw-requestid') ?? '');
        }
      }
      expect(ids.size).toBe(15);
      expect(requestIds.size).toBe(before + 15);
    });
  });

  describe('401: a signing header is missing', () => {
    const names = ['x-api-key-id', 'x-value-info', 'x-passphrase', 'x-signature'];

    it.each(names)('without %s', async (name) => {
      const { headers } = signFor(client.credentials, 'GET', '/chains');
      delete headers[name];
      expectBare(await send('GET', '/chains', headers), 401, UNAUTHORIZED);
    });

    it.each(names)('with an empty %s', async (name) => {
      const { headers } = signFor(client.credentials, 'GET', '/chains');
      headers[name] = '';
      expectBare(await send('GET', '/chains', headers), 401, UNAUTHORIZED);
    });

    it('with no headers at all, on GET and POST routes', async () => {
      expectBare(await send('GET', '/chains', {}), 401, UNAUTHORIZED);
      expectBare(
        await send('POST', '/support-chain', { 'content-type': 'application/json' }, '{"chainId":1}'),
        401,
        UNAUTHORIZED,
      );
      expectBare(
        await send('GET', '/tokens?chainId=137', { 'content-type': 'application/json' }),
        401,
        UNAUTHORIZED,
      );
    });
  });

  describe('403: checks 1 to 4 fail with one bare answer', () => {
    const texts = new Set<string>();
    const expectForbidden = async (res: Promise<ApiResponse<Envelope>>) => {
      const r = await res;
      expectBare(r, 403, FORBIDDEN);
      texts.add(r.text);
    };
    afterAll(() => expect([...texts]).toEqual([FORBIDDEN]));

    it('unknown API key id (well-formed and malformed)', async () => {
      for (const apiKey of [randomUUID(), 'not-a-uuid', `${client.credentials.apiKey}0`]) {
        await expectForbidden(
          sendSigned('GET', '/chains', signFor({ ...client.credentials, apiKey }, 'GET', '/chains')),
        );
      }
    });

    it('wrong passphrase, also after the right one was cached', async () => {
      const wrong = { ...client.credentials, passphrase: `${client.credentials.passphrase}x` };
      await expectForbidden(sendSigned('GET', '/chains', signFor(wrong, 'GET', '/chains')));
      expect((await sendSigned('GET', '/chains', signFor(client.credentials, 'GET', '/chains'))).status).toBe(
        200,
      );
      await expectForbidden(sendSigned('GET', '/chains', signFor(wrong, 'GET', '/chains')));
      const prefix = { ...client.credentials, passphrase: client.credentials.passphrase.slice(0, -1) };
      await expectForbidden(sendSigned('GET', '/chains', signFor(prefix, 'GET', '/chains')));
    });

    it('the passphrase of another account', async () => {
      const other = await newAccountClient(baseUrl, 'other-tester');
      const mixed = { ...client.credentials, passphrase: other.credentials.passphrase };
      await expectForbidden(sendSigned('GET', '/chains', signFor(mixed, 'GET', '/chains')));
    });

    it('bad signature: altered, truncated, uppercase hex, or keyed with another secret', async () => {
      const signed = signFor(client.credentials, 'GET', '/chains');
      const sig = signed.headers['x-signature'];
      const variants = [
        `${sig.slice(0, -1)}${sig.endsWith('0') ? '1' : '0'}`,
        sig.slice(0, 63),
        `${sig}0`,
        sig.toUpperCase(),
        hmacHex('another-secret', 'x'),
      ];
      for (const signature of variants) {
        const { headers } = signFor(client.credentials, 'GET', '/chains');
        await expectForbidden(send('GET', '/chains', { ...headers, 'x-signature': signature }));
      }
      const wrongSecret = { ...client.credentials, secretKey: `${client.credentials.secretKey}x` };
      await expectForbidden(sendSigned('GET', '/chains', signFor(wrongSecret, 'GET', '/chains')));
    });

    it('headers signed for another path, query or method', async () => {
      const forPath = signFor(client.credentials, 'GET', '/chains');
      await expectForbidden(send('GET', '/tokens?chainId=137', forPath.headers));
      const forQuery = signFor(client.credentials, 'GET', '/tokens?chainId=137');
      await expectForbidden(send('GET', '/tokens?chainId=1', forQuery.headers));
      await expectForbidden(
        send(
          'GET',
          '/tokens?chainId=137&x=1',
          signFor(client.credentials, 'GET', '/tokens?chainId=137').headers,
        ),
      );
      await expectForbidden(
        send('GET', '/tokens', signFor(client.credentials, 'GET', '/tokens?chainId=137').headers),
      );
      const forDelete = signFor(client.credentials, 'DELETE', '/chains');
      await expectForbidden(send('GET', '/chains', forDelete.headers));
      // A POST signature does not open another POST route, even with the same body.
      const forAccounts = signFor(client.credentials, 'POST', '/accounts', { chainId: 1 });
      await expectForbidden(send('POST', '/support-chain', forAccounts.headers, forAccounts.bodyString));
    });

    it('accepts the same query in another order or encoding (the canonical query is signed)', async () => {
      const signed = signFor(client.credentials, 'GET', '/tokens?chainId=137&x=a%20b');
      const res = await send('GET', '/tokens?x=a+b&chainId=137', signed.headers);
      // Signature accepted; the route then refuses the unknown parameter in the envelope.
      expect(res.status).toBe(400);
      expect(res.body.error?.message).toBe('Invalid query parameters');
    });

    it('x-value-info altered after signing, or malformed', async () => {
      const signed = signFor(client.credentials, 'GET', '/chains');
      const now = String(Math.floor(Date.now() / 1000) - 1);
      const altered = encodeValueInfo(now, randomBytes(12).toString('hex'), EMPTY_BODY_HASH);
      await expectForbidden(send('GET', '/chains', { ...signed.headers, 'x-value-info': altered }));
      for (const info of [
        'not base64!',
        Buffer.from('a\nb').toString('base64'),
        Buffer.from(`${now}\n${randomBytes(12).toString('hex')}\nshort`).toString('base64'),
        signed.headers['x-value-info'].replace(/=+$/, ''),
      ]) {
        await expectForbidden(
          send('GET', '/chains', {
            ...signFor(client.credentials, 'GET', '/chains').headers,
            'x-value-info': info,
          }),
        );
      }
    });

    it('bad nonce format (correctly signed)', async () => {
      for (const nonce of [
        '0123456789abcdef0123456',
        '0123456789abcdef012345678',
        '0123456789abcdef0123456g',
        '',
        ' 123456789abcdef01234567',
      ]) {
        const headers = signParts(client.credentials, {
          method: 'GET',
          path: '/api/v1/chains',
          bodyHash: EMPTY_BODY_HASH,
          nonce,
        });
        await expectForbidden(send('GET', '/chains', headers));
      }
    });

    it('timestamp outside 300 seconds either way, or not a number (correctly signed)', async () => {
      const second = Math.floor(Date.now() / 1000);
      // +302 from the start of the client's second is at least 301 s ahead of any later server instant.
      for (const timestamp of [
        String(second + 302),
        String(second - 301),
        String(second - 100000),
        'abc',
        `${second}.5`,
        '',
      ]) {
        const headers = signParts(client.credentials, {
          method: 'GET',
          path: '/api/v1/chains',
          bodyHash: EMPTY_BODY_HASH,
          timestamp,
        });
        await expectForbidden(send('GET', '/chains', headers));
      }
    });

    it('timestamps inside the window are accepted', async () => {
      const second = Math.floor(Date.now() / 1000);
      for (const timestamp of [String(second + 298), String(second - 298), String(second)]) {
        const headers = signParts(client.credentials, {
          method: 'GET',
          path: '/api/v1/chains',
          bodyHash: EMPTY_BODY_HASH,
          timestamp,
        });
        expect((await send('GET', '/chains', headers)).status).toBe(200);
      }
    });

    it('a reused nonce: each set of headers works once, and a new timestamp does not free the nonce', async () => {
      const signed = signFor(client.credentials, 'GET', '/chains');
      expect((await sendSigned('GET', '/chains', signed)).status).toBe(200);
      await expectForbidden(sendSigned('GET', '/chains', signed));
      const nonce = randomBytes(12).toString('hex');
      const first = signParts(client.credentials, {
        method: 'GET',
        path: '/api/v1/chains',
        bodyHash: EMPTY_BODY_HASH,
        nonce,
      });
      expect((await send('GET', '/chains', first)).status).toBe(200);
      const again = signParts(client.credentials, {
        method: 'GET',
        path: '/api/v1/tokens',
        rawQuery: 'chainId=137',
        bodyHash: EMPTY_BODY_HASH,
        nonce: nonce.toUpperCase(),
        timestamp: String(Math.floor(Date.now() / 1000) - 5),
      });
      await expectForbidden(send('GET', '/tokens?chainId=137', again));
    });

    it('a refused request does not spend its nonce', async () => {
      const nonce = randomBytes(12).toString('hex');
      const wrong = { ...client.credentials, passphrase: 'wrong-passphrase' };
      await expectForbidden(
        send(
          'GET',
          '/chains',
          signParts(wrong, { method: 'GET', path: '/api/v1/chains', bodyHash: EMPTY_BODY_HASH, nonce }),
        ),
      );
      const ok = signParts(client.credentials, {
        method: 'GET',
        path: '/api/v1/chains',
        bodyHash: EMPTY_BODY_HASH,
        nonce,
      });
      expect((await send('GET', '/chains', ok)).status).toBe(200);
    });

    it(`a deactivated account stops working within ACCOUNT_CACHE_TTL_MS (${CACHE_TTL_MS} ms here)`, async () => {
      expect(ENV_DEFAULTS.ACCOUNT_CACHE_TTL_MS).toBe('2000');
      const victim = await newAccountClient(baseUrl, 'victim-tester');
      expect((await victim.get('/chains')).status).toBe(200);
      expect(await running.store.accounts.setActive(victim.credentials.apiKey, false, Date.now())).toBe(true);
      const deactivatedAt = Date.now();
      await sleep(CACHE_TTL_MS + 20);
      const res = await victim.get('/chains');
      expect(Date.now() - deactivatedAt).toBeLessThan(CACHE_TTL_MS + 1000);
      await expectForbidden(Promise.resolve(res));
      await expectForbidden(victim.post('/support-chain', { chainId: 1 }));
      // The operator can switch it back on.
      await running.store.accounts.setActive(victim.credentials.apiKey, true, Date.now());
      await sleep(CACHE_TTL_MS + 20);
      expect((await victim.get('/chains')).status).toBe(200);
    });

    it('signed headers do not open an unknown route, which answers its 404 before authentication', async () => {
      const res = await sendSigned('DELETE', '/chains', signFor(client.credentials, 'DELETE', '/chains'));
      expectEnvelopeError(res, 404, 'NOT_FOUND', 'No route for DELETE /api/v1/chains');
    });
  });

  describe('403 FORBIDDEN: check 5, the body hash', () => {
    it('a body altered after signing', async () => {
      const signed = signFor(client.credentials, 'POST', '/support-chain', { chainId: 1 });
      const res = await send('POST', '/support-chain', signed.headers, '{"chainId":137}');
      expectEnvelopeError(res, 403, 'FORBIDDEN', 'Invalid body hash', client.credentials.apiKey);
    });

    it('a body sent without the JSON content type, or with another type', async () => {
      for (const type of ['text/plain', 'application/x-www-form-urlencoded', 'application/jsonx']) {
        const signed = signFor(client.credentials, 'POST', '/support-chain', { chainId: 1 });
        const res = await send(
          'POST',
          '/support-chain',
          { ...signed.headers, 'content-type': type },
          signed.bodyString,
        );
        expectEnvelopeError(res, 403, 'FORBIDDEN', 'Invalid body hash', client.credentials.apiKey);
      }
      const signed = signFor(client.credentials, 'POST', '/support-chain', { chainId: 1 });
      const noType = withoutContentType(signed.headers);
      // A Buffer body makes fetch send no Content-Type at all.
      const res = await send('POST', '/support-chain', noType, Buffer.from(signed.bodyString));
      expectEnvelopeError(res, 403, 'FORBIDDEN', 'Invalid body hash', client.credentials.apiKey);
    });

    it('accepts the JSON content type with parameters and in any case', async () => {
      for (const type of ['application/json; charset=utf-8', 'Application/JSON']) {
        const signed = signFor(client.credentials, 'POST', '/support-chain', { chainId: 137 });
        const res = await send(
          'POST',
          '/support-chain',
          { ...signed.headers, 'content-type': type },
          signed.bodyString,
        );
        expect(res.status).toBe(200);
        expect(res.body.data).toBe(true);
      }
    });

    it('a GET signed with a non-empty body hash', async () => {
      const headers = signParts(client.credentials, {
        method: 'GET',
        path: '/api/v1/chains',
        bodyHash: bodyHashOf('{}'),
      });
      const res = await send('GET', '/chains', headers);
      expectEnvelopeError(res, 403, 'FORBIDDEN', 'Invalid body hash', client.credentials.apiKey);
    });

    it('a GET that carries a body it did not sign', async () => {
      const signed = signFor(client.credentials, 'GET', '/chains');
      const res = await httpRequest(baseUrl, 'GET', '/chains', signed.headers, '{"a":1}');
      expect(res.status).toBe(403);
      expect(JSON.parse(res.text)).toEqual({
        success: false,
        error: { code: 'FORBIDDEN', message: 'Invalid body hash', details: [] },
        meta: {
          requestId: res.headers['apigw-requestid'],
          version: 'v1',
          accountType: 'integrator',
          apiKeyId: client.credentials.apiKey,
        },
      });
    });

    it('a POST signed over a body but sent without one, and a POST signed empty but sent with one', async () => {
      const signed = signFor(client.credentials, 'POST', '/support-chain', { chainId: 1 });
      expectEnvelopeError(
        await send('POST', '/support-chain', signed.headers),
        403,
        'FORBIDDEN',
        'Invalid body hash',
        client.credentials.apiKey,
      );
      const empty = signParts(client.credentials, {
        method: 'POST',
        path: '/api/v1/support-chain',
        bodyHash: EMPTY_BODY_HASH,
      });
      expectEnvelopeError(
        await send('POST', '/support-chain', empty, '{"chainId":1}'),
        403,
        'FORBIDDEN',
        'Invalid body hash',
        client.credentials.apiKey,
      );
    });

    it('accepts a body with other whitespace and key order: the server hashes the canonical form', async () => {
      const signed = signFor(client.credentials, 'POST', '/support-chain', {
        chainId: 137,
        z: 1,
        a: [1.0, 2],
      });
      const res = await send(
        'POST',
        '/support-chain',
        signed.headers,
        '{ "z" : 1.0 , "a" : [1, 2.00], "chainId" : 137 }',
      );
      expect(res.status).toBe(200);
      expect(res.body.data).toBe(true);
    });
  });

  describe('400: bodies', () => {
    it('POST /accounts without a JSON content type: Invalid JSON body', async () => {
      const body = '{"name":"content-tester","password":"password-1"}';
      const types: Array<Record<string, string>> = [
        {},
        { 'content-type': 'text/plain' },
        { 'content-type': 'application/x-www-form-urlencoded' },
      ];
      for (const headers of types) {
        // A Buffer keeps fetch from adding its own text/plain type.
        const res = await send('POST', '/accounts', headers, Buffer.from(body));
        expect(res.status).toBe(400);
        expect(res.body).toEqual({
          success: false,
          error: { code: 'VALIDATION_ERROR', message: 'Invalid JSON body', details: [] },
          meta: { requestId: res.headers.get('apigw-requestid'), version: 'v1' },
        });
      }
      expect((await send('POST', '/accounts', {})).body.error?.message).toBe('Invalid JSON body');
    });

    it('POST /accounts with invalid JSON, or with no body', async () => {
      for (const body of ['{"name":', 'name=abc', '\u00ff', "{'a':1}"]) {
        const res = await send('POST', '/accounts', { 'content-type': 'application/json' }, body);
        expectEnvelopeError(res, 400, 'VALIDATION_ERROR', 'Invalid JSON body');
      }
      const res = await send('POST', '/accounts', { 'content-type': 'application/json' });
      expectEnvelopeError(res, 400, 'VALIDATION_ERROR', 'Body is required');
    });

    it('POST /accounts with a JSON body that is not an object', async () => {
      const res = await send('POST', '/accounts', { 'content-type': 'application/json' }, '[1]');
      expect(res.status).toBe(400);
      expect(res.body.error).toEqual({
        code: 'VALIDATION_ERROR',
        message: 'Invalid request body',
        details: [{ field: 'body', message: 'Must be an object' }],
      });
    });

    it('invalid JSON on a signed route whose signed hash matches the bytes: Invalid JSON body', async () => {
      const bytes = '{"chainId":1';
      const headers = signParts(client.credentials, {
        method: 'POST',
        path: '/api/v1/support-chain',
        bodyHash: bodyHashOf(bytes),
      });
      const res = await send('POST', '/support-chain', headers, bytes);
      expectEnvelopeError(res, 400, 'VALIDATION_ERROR', 'Invalid JSON body', client.credentials.apiKey);
    });

    it('invalid JSON on a signed route whose hash does not match: Invalid body hash', async () => {
      const headers = signParts(client.credentials, {
        method: 'POST',
        path: '/api/v1/support-chain',
        bodyHash: bodyHashOf('{"chainId":1}'),
      });
      const res = await send('POST', '/support-chain', headers, '{"chainId":1');
      expectEnvelopeError(res, 403, 'FORBIDDEN', 'Invalid body hash', client.credentials.apiKey);
    });

    it('a JSON number JSON cannot write back (1e400): refused, never accepted under the empty hash', async () => {
      const bytes = '{"chainId":1e400}';
      for (const bodyHash of [EMPTY_BODY_HASH, bodyHashOf('{"chainId":null}')]) {
        const headers = signParts(client.credentials, {
          method: 'POST',
          path: '/api/v1/support-chain',
          bodyHash,
        });
        const res = await send('POST', '/support-chain', headers, bytes);
        expectEnvelopeError(res, 403, 'FORBIDDEN', 'Invalid body hash', client.credentials.apiKey);
      }
      const headers = signParts(client.credentials, {
        method: 'POST',
        path: '/api/v1/support-chain',
        bodyHash: bodyHashOf(bytes),
      });
      const res = await send('POST', '/support-chain', headers, bytes);
      expectEnvelopeError(res, 400, 'VALIDATION_ERROR', 'Invalid JSON body', client.credentials.apiKey);
    });

    it('a signed POST signed and sent empty: Body is required', async () => {
      const headers = signParts(client.credentials, {
        method: 'POST',
        path: '/api/v1/support-chain',
        bodyHash: EMPTY_BODY_HASH,
      });
      const res = await send('POST', '/support-chain', headers);
      expectEnvelopeError(res, 400, 'VALIDATION_ERROR', 'Body is required', client.credentials.apiKey);
    });

    it('a GET without Content-Type and without a body is served', async () => {
      const headers = withoutContentType(signFor(client.credentials, 'GET', '/chains').headers);
      expect((await send('GET', '/chains', headers)).status).toBe(200);
    });
  });

  describe('404: no route for the method and path', () => {
    it.each([
      ['DELETE', '/chains', 'DELETE /api/v1/chains'],
      ['GET', '/Chains', 'GET /api/v1/Chains'],
      ['GET', '/chains/', 'GET /api/v1/chains/'],
      ['POST', '/chains', 'POST /api/v1/chains'],
      ['PUT', '/accounts', 'PUT /api/v1/accounts'],
      ['GET', '/accounts', 'GET /api/v1/accounts'],
      ['PATCH', '/support-chain', 'PATCH /api/v1/support-chain'],
      ['GET', '/no-such-thing?x=1', 'GET /api/v1/no-such-thing'],
    ])('%s %s', async (method, pathAndQuery, described) => {
      const res = await send(method, pathAndQuery, { 'content-type': 'application/json' });
      expectEnvelopeError(res, 404, 'NOT_FOUND', `No route for ${described}`);
    });

    it('outside /api/v1', async () => {
      const res = await rawRequest<Envelope>(baseUrl.replace(/\/api\/v1$/, ''), 'GET', '/api/v2/chains');
      expectEnvelopeError(res, 404, 'NOT_FOUND', 'No route for GET /api/v2/chains');
    });
  });

  /** Runs one signed GET /chains through an authenticator directly; its reason when refused. */
  const authenticateDirectly = async (authenticator: AccountAuthenticator, h: Record<string, string>) => {
    const result = await authenticator.authenticate(
      {
        apiKey: h['x-api-key-id'],
        valueInfo: h['x-value-info'],
        passphrase: h['x-passphrase'],
        signature: h['x-signature'],
      },
      { method: 'GET', path: '/api/v1/chains', rawQuery: '' },
    );
    return result.ok ? 'ok' : result.reason;
  };
  const authenticatorAt = (clock: () => number) =>
    new AccountAuthenticator({
      accounts: running.store.accounts,
      nonces: new StoreNonceLedger(running.store.nonces, clock),
      secretBox: new SecretBox(loadMasterKey(running.config)),
      cacheTtlMs: 0,
      now: clock,
    });
  const signedAt = (timestamp: number) =>
    signParts(client.credentials, {
      method: 'GET',
      path: '/api/v1/chains',
      bodyHash: EMPTY_BODY_HASH,
      timestamp: String(timestamp),
    });

  describe('the timestamp window, in whole seconds (authenticator on the real store, fixed clock)', () => {
    it.each([0, 1, 500, 999])(
      'accepts exactly 300 s either way and refuses 301 s, the server clock %i ms into its second',
      async (ms) => {
        const second = Math.floor(Date.now() / 1000);
        const authenticator = authenticatorAt(() => second * 1000 + ms);
        const outcomes = [];
        for (const offset of [-301, -300, 0, 300, 301]) {
          outcomes.push(await authenticateDirectly(authenticator, signedAt(second + offset)));
        }
        expect(outcomes).toEqual(['timestamp', 'ok', 'ok', 'ok', 'timestamp']);
      },
    );
  });

  describe('nonce memory covers the whole timestamp window (authenticator on the real store, moving clock)', () => {
    it('refuses a replay of a request signed ahead of the server clock after a plain 5-minute record would expire', async () => {
      let clock = Math.floor(Date.now() / 1000) * 1000;
      const authenticator = authenticatorAt(() => clock);
      const h = signedAt(clock / 1000 + 290);
      expect(await authenticateDirectly(authenticator, h)).toBe('ok');
      // 301 s later the timestamp is still only 11 s off, so only the nonce record can refuse the replay.
      clock += 301_000;
      expect(await authenticateDirectly(authenticator, h)).toBe('replay');
      clock += 290_000;
      expect(await authenticateDirectly(authenticator, h)).toBe('timestamp');
    });

    it('refuses a replay in the last millisecond of the window of a request signed 300 s ahead', async () => {
      const second = Math.floor(Date.now() / 1000);
      let clock = second * 1000;
      const authenticator = authenticatorAt(() => clock);
      const h = signedAt(second + 300);
      expect(await authenticateDirectly(authenticator, h)).toBe('ok');
      // The timestamp passes until the server's second is 300 past it, i.e. to its last millisecond.
      clock = (second + 600) * 1000 + 999;
      expect(await authenticateDirectly(authenticator, h)).toBe('replay');
      clock += 1;
      expect(await authenticateDirectly(authenticator, h)).toBe('timestamp');
    });

    it('accepts exactly one of identical requests sent at once (one batch)', async () => {
      const headers = signFor(client.credentials, 'GET', '/chains').headers;
      const statuses = await Promise.all(
        Array.from({ length: 12 }, () =>
          rawRequest(baseUrl, 'GET', '/chains', { headers }).then((r) => r.status),
        ),
      );
      expect(statuses.filter((s) => s === 200)).toHaveLength(1);
      expect(statuses.filter((s) => s === 403)).toHaveLength(11);
    });

    it('records a batch with a repeated nonce as one use', async () => {
      const key = randomUUID();
      const now = Date.now();
      const [a, b] = [randomBytes(12).toString('hex'), randomBytes(12).toString('hex')];
      const uses = [a, b, a].map((nonce) => ({ apiKey: key, nonce, expiresAt: now + NONCE_TTL_MS }));
      expect(await running.store.nonces.useMany(uses, now)).toEqual([true, true, false]);
      expect(await running.store.nonces.useMany(uses.slice(0, 1), now)).toEqual([false]);
    });
  });

  describe('stored credentials', () => {
    it('keeps neither the secret key nor the passphrase in clear, and the secret opens only with the master key', async () => {
      const row = (await running.store
        .knex('accounts')
        .where({ api_key: client.credentials.apiKey })
        .first()) as Record<string, unknown>;
      const stored = JSON.stringify(row);
      expect(stored).not.toContain(client.credentials.secretKey);
      expect(stored).not.toContain(client.credentials.passphrase);
      expect(String(row.passphrase_hash)).toMatch(
        /^scrypt\$16384\$8\$1\$[A-Za-z0-9_-]{22}\$[A-Za-z0-9_-]{43}$/,
      );
      expect(String(row.secret_encrypted)).toMatch(
        /^v1\.[A-Za-z0-9_-]{16}\.[A-Za-z0-9_-]{22}\.[A-Za-z0-9_-]+$/,
      );
      const box = new SecretBox(loadMasterKey(running.config));
      expect(box.open(String(row.secret_encrypted), client.credentials.apiKey)).toBe(
        client.credentials.secretKey,
      );
      // Bound to its account: the same box does not open under another key id.
      expect(() => box.open(String(row.secret_encrypted), randomUUID())).toThrow();
      expect(() =>
        new SecretBox(randomBytes(32)).open(String(row.secret_encrypted), client.credentials.apiKey),
      ).toThrow();
    });

    it('the generated master key file has mode 0600', () => {
      expect(running.config.masterKey).toBe('');
      const file = path.join(running.target.dataDir, MASTER_KEY_FILE);
      expect(statSync(file).mode & 0o777).toBe(0o600);
    });
  });

  describe('nonces in the shared store', () => {
    let second: RunningApi;
    beforeAll(async () => {
      // Its own knex on the same DATABASE_URL (or SQLite file): another api process, as far as the store knows.
      second = await startApi(running.target, { ACCOUNT_CACHE_TTL_MS: String(CACHE_TTL_MS) });
    });
    afterAll(async () => second?.close());

    it('a second api instance serves the same accounts', async () => {
      expect(second.store).not.toBe(running.store);
      const res = await rawRequest<Envelope>(second.baseUrl, 'GET', '/chains', {
        headers: signFor(client.credentials, 'GET', '/chains').headers,
      });
      expect(res.status).toBe(200);
    });

    it('refuses on the second instance a request replayed from the first', async () => {
      const signed = signFor(client.credentials, 'POST', '/support-chain', { chainId: 137 });
      expect((await send('POST', '/support-chain', signed.headers, signed.bodyString)).status).toBe(200);
      const replay = await rawRequest<Envelope>(second.baseUrl, 'POST', '/support-chain', {
        headers: signed.headers,
        body: signed.bodyString,
      });
      expectBare(replay, 403, FORBIDDEN);
    });

    it('lets exactly one of two simultaneous copies through, across instances', async () => {
      for (let i = 0; i < 5; i++) {
        const signed = signFor(client.credentials, 'GET', '/chains');
        const results = await Promise.all([
          rawRequest(baseUrl, 'GET', '/chains', { headers: signed.headers }),
          rawRequest(second.baseUrl, 'GET', '/chains', { headers: signed.headers }),
          rawRequest(second.baseUrl, 'GET', '/chains', { headers: signed.headers }),
        ]);
        expect(results.map((r) => r.status).sort()).toEqual([200, 403, 403]);
      }
    });

    it('purges expired nonces and accepts a nonce again once its 5 minutes are over', async () => {
      const t0 = Date.now() - 60 * 60 * 1000;
      const key = client.credentials.apiKey;
      const nonce = randomBytes(12).toString('hex');
      expect(NONCE_TTL_MS).toBe(300_000);
      expect(await running.store.nonces.use(key, nonce, t0, NONCE_TTL_MS)).toBe(true);
      expect(await running.store.nonces.use(key, nonce, t0 + 1, NONCE_TTL_MS)).toBe(false);
      expect(await second.store.nonces.use(key, nonce, t0 + NONCE_TTL_MS - 1, NONCE_TTL_MS)).toBe(false);
      // Another key may use the same nonce.
      expect(await running.store.nonces.use(randomUUID(), nonce, t0 + 1, NONCE_TTL_MS)).toBe(true);
      // Past its window the record no longer blocks (even before a purge), and is renewed by the new use.
      expect(await running.store.nonces.use(key, nonce, t0 + NONCE_TTL_MS, NONCE_TTL_MS)).toBe(true);
      expect(await running.store.nonces.use(key, nonce, t0 + NONCE_TTL_MS + 1, NONCE_TTL_MS)).toBe(false);

      const stale = randomBytes(12).toString('hex');
      await running.store.nonces.use(key, stale, t0, NONCE_TTL_MS);
      const count = (n: string) => running.store.nonces.records(n);
      expect(await count(stale)).toBe(1);
      expect(await running.store.nonces.purgeExpired(Date.now())).toBeGreaterThanOrEqual(2);
      expect(await count(stale)).toBe(0);
      expect(await count(nonce)).toBe(0);
      // Nonces still inside their window survive the purge.
      const fresh = randomBytes(12).toString('hex');
      await running.store.nonces.use(key, fresh, Date.now(), NONCE_TTL_MS);
      await running.store.nonces.purgeExpired(Date.now());
      expect(await count(fresh)).toBe(1);
    });

    it('over HTTP: a nonce seen 4 minutes ago is refused, one seen 5 minutes and 1 second ago is accepted', async () => {
      const key = client.credentials.apiKey;
      const recent = randomBytes(12).toString('hex');
      const old = randomBytes(12).toString('hex');
      await running.store.nonces.use(key, recent, Date.now() - 4 * 60 * 1000, NONCE_TTL_MS);
      await running.store.nonces.use(key, old, Date.now() - NONCE_TTL_MS - 1000, NONCE_TTL_MS);
      const sign = (nonce: string) =>
        signParts(client.credentials, {
          method: 'GET',
          path: '/api/v1/chains',
          bodyHash: EMPTY_BODY_HASH,
          nonce,
        });
      expectBare(await send('GET', '/chains', sign(recent)), 403, FORBIDDEN);
      expect((await send('GET', '/chains', sign(old))).status).toBe(200);
      expectBare(await rawRequest(second.baseUrl, 'GET', '/chains', { headers: sign(old) }), 403, FORBIDDEN);
    });
  });

  describe('429: rate limit', () => {
    let limited: RunningApi;
    beforeAll(async () => {
      limited = await startApi(running.target, { RATE_LIMIT_PER_SECOND: '1', RATE_LIMIT_BURST: '3' });
    });
    afterAll(async () => limited?.close());

    // Each client IP has a budget of its own (before authentication) besides each key's: requests come from
    // several loopback addresses so that each test meets only the budget it is about.
    const TOO_MANY = '{"message":"Too Many Requests"}';
    const from = (address: string, headers: Record<string, string>) =>
      requestFrom(address, limited.baseUrl, 'GET', '/chains', headers);

    it('per API key on signed routes, with Retry-After, and refills', async () => {
      const sign = () => signFor(client.credentials, 'GET', '/chains').headers;
      const statuses = [];
      for (let i = 1; i <= 3; i++) statuses.push((await from(`127.0.2.${i}`, sign())).status);
      expect(statuses).toEqual([200, 200, 200]);
      const res = await from('127.0.2.4', sign());
      expect({ status: res.status, text: res.text }).toEqual({ status: 429, text: TOO_MANY });
      expect(res.headers['retry-after']).toBe('1');
      expect(res.headers['apigw-requestid']).toMatch(UUID);
      // Another key has its own budget, from the same IP.
      const other = await newAccountClient(baseUrl, 'limit-tester');
      expect((await from('127.0.2.4', signFor(other.credentials, 'GET', '/chains').headers)).status).toBe(
        200,
      );
      await sleep(1050);
      expect((await from('127.0.2.5', sign())).status).toBe(200);
    });

    it('per IP on public routes', async () => {
      const post = () =>
        requestFrom(
          '127.0.2.10',
          limited.baseUrl,
          'POST',
          '/accounts',
          { 'content-type': 'application/json' },
          '{"name":"x","password":"y"}',
        );
      const statuses = [];
      for (let i = 0; i < 3; i++) statuses.push((await post()).status);
      expect(statuses).toEqual([400, 400, 400]);
      const res = await post();
      expect({ status: res.status, text: res.text }).toEqual({ status: 429, text: TOO_MANY });
      expect(Number(res.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    });

    it('per IP on signed routes too, before authentication, whatever the keys', async () => {
      const keys = [];
      for (let i = 0; i < 4; i++) keys.push(await newAccountClient(baseUrl, `ip-limit-${i}`));
      const answers = [];
      for (const k of keys)
        answers.push(await from('127.0.2.20', signFor(k.credentials, 'GET', '/chains').headers));
      // Four keys with their budgets untouched: the fourth request is refused by the IP's budget.
      expect(answers.map((a) => a.status)).toEqual([200, 200, 200, 429]);
      expect(answers[3]!.text).toBe(TOO_MANY);
      expect((await from('127.0.2.21', signFor(keys[3]!.credentials, 'GET', '/chains').headers)).status).toBe(
        200,
      );
    });
  });

  describe('429: refused authentication attempts per IP', () => {
    let guarded: RunningApi;
    beforeAll(async () => {
      guarded = await startApi(running.target, {
        AUTH_FAILURE_LIMIT_PER_SECOND: '1',
        AUTH_FAILURE_LIMIT_BURST: '2',
      });
    });
    afterAll(async () => guarded?.close());

    it('answers 429 once an IP has spent its budget of refused attempts, even with valid credentials', async () => {
      const wrongPassphrase = () => ({
        ...signFor(client.credentials, 'GET', '/chains').headers,
        'x-passphrase': 'not-the-passphrase',
      });
      const statuses = [];
      for (let i = 0; i < 2; i++)
        statuses.push(
          (await rawRequest(guarded.baseUrl, 'GET', '/chains', { headers: wrongPassphrase() })).status,
        );
      expect(statuses).toEqual([403, 403]);
      const res = await rawRequest(guarded.baseUrl, 'GET', '/chains', {
        headers: signFor(client.credentials, 'GET', '/chains').headers,
      });
      expectBare(res, 429, '{"message":"Too Many Requests"}');
      expect(res.headers.get('retry-after')).toBe('1');
      await sleep(1050);
      const ok = await rawRequest(guarded.baseUrl, 'GET', '/chains', {
        headers: signFor(client.credentials, 'GET', '/chains').headers,
      });
      expect(ok.status).toBe(200);
    });
  });

  describe('413: body limit', () => {
    let small: RunningApi;
    beforeAll(async () => {
      small = await startApi(running.target, { BODY_LIMIT_BYTES: '256' });
    });
    afterAll(async () => small?.close());

    const big = (bytes: number) =>
      JSON.stringify({ name: 'size-tester', password: 'p'.repeat(bytes - 40) }).padEnd(bytes, ' ');

    it('answers a bare 413 on a public route when the body is over the limit', async () => {
      const res = await rawRequest(small.baseUrl, 'POST', '/accounts', {
        headers: { 'content-type': 'application/json' },
        body: big(257),
      });
      expectBare(res, 413, '{"message":"Payload Too Large"}');
    });

    it('serves a body of exactly the limit', async () => {
      const body = JSON.stringify({ name: 'abc', password: 'p'.repeat(256 - 30) }).padEnd(256, ' ');
      expect(Buffer.byteLength(body)).toBe(256);
      const res = await rawRequest<Envelope>(small.baseUrl, 'POST', '/accounts', {
        headers: { 'content-type': 'application/json' },
        body,
      });
      expect(res.status).toBe(400);
      expect(res.body.error?.details).toEqual([{ field: 'name', message: 'Must be at least 6 characters' }]);
    });

    it('answers a bare 413 on a signed route', async () => {
      const signed = signFor(client.credentials, 'POST', '/support-chain', {
        chainId: 1,
        pad: 'x'.repeat(300),
      });
      const res = await rawRequest(small.baseUrl, 'POST', '/support-chain', {
        headers: signed.headers,
        body: signed.bodyString,
      });
      expectBare(res, 413, '{"message":"Payload Too Large"}');
    });

    it('answers a bare 413 for a chunked body without Content-Length', async () => {
      const chunks = [
        Buffer.from('{"name":"chunk-tester","password":"'),
        Buffer.from('p'.repeat(400)),
        Buffer.from('"}'),
      ];
      const body = new ReadableStream<Uint8Array>({
        start(controller) {
          for (const c of chunks) controller.enqueue(c);
          controller.close();
        },
      });
      const res = await fetch(`${small.baseUrl}/accounts`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body,
        duplex: 'half',
      } as RequestInit);
      expect(res.status).toBe(413);
      expect(await res.text()).toBe('{"message":"Payload Too Large"}');
      expect(res.headers.get('apigw-requestid')).toMatch(UUID);
    });
  });

  describe('503 after the gateway timeout; 500 for the unexpected', () => {
    const unreadableKey = randomUUID();
    let slowStore: Store;
    let slowTokens: SlowTokensRepository;
    let api: ApiInstance;
    let slowUrl: string;

    beforeAll(async () => {
      const config = testConfig(running.target, { GATEWAY_TIMEOUT_MS: '250' });
      const store = await openStore(config);
      slowTokens = new SlowTokensRepository(store.knex, 600);
      slowStore = {
        ...store,
        tokens: slowTokens,
        accounts: new FailingAccountsRepository(store.knex, unreadableKey),
      };
      api = await buildApi(config, { store: slowStore });
      slowUrl = (await api.listen()).baseUrl;
    });
    afterAll(async () => {
      await api?.close();
      await Promise.allSettled([...(slowTokens?.pending ?? [])]);
      await slowStore?.close();
    });

    it('answers a bare 503 when the route runs past GATEWAY_TIMEOUT_MS, and still serves fast routes', async () => {
      const started = Date.now();
      const res = await rawRequest(slowUrl, 'GET', '/tokens?chainId=137', {
        headers: signFor(client.credentials, 'GET', '/tokens?chainId=137').headers,
      });
      expectBare(res, 503, '{"message":"Service Unavailable"}');
      expect(Date.now() - started).toBeLessThan(550);
      expect(
        (
          await rawRequest(slowUrl, 'GET', '/chains', {
            headers: signFor(client.credentials, 'GET', '/chains').headers,
          })
        ).status,
      ).toBe(200);
    });

    it('answers 500 INTERNAL_ERROR without internals when a handler fails unexpectedly', async () => {
      const res = await rawRequest<Envelope>(slowUrl, 'POST', '/accounts', {
        headers: { 'content-type': 'application/json' },
        body: '{"name":"failing-tester","password":"password-1"}',
      });
      expectEnvelopeError(res, 500, 'INTERNAL_ERROR', 'Unexpected internal error');
      expect(res.text).not.toMatch(/ER_SECRET|hunter2|db-internal|stack|Error/);
    });

    it('answers a bare 503 with Retry-After, never 403, when the account cannot be read (verification could not run)', async () => {
      const creds = { ...client.credentials, apiKey: unreadableKey };
      const res = await rawRequest(slowUrl, 'GET', '/chains', {
        headers: signFor(creds, 'GET', '/chains').headers,
      });
      expectBare(res, 503, '{"message":"Service Unavailable"}');
      expect(res.headers.get('retry-after')).toBe('5');
    });

    it('answers a bare 503 with Retry-After when a route cannot reach the store', async () => {
      const res = await rawRequest(slowUrl, 'POST', '/accounts', {
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ name: STORE_GONE_NAME, password: 'password-1' }),
      });
      expectBare(res, 503, '{"message":"Service Unavailable"}');
      expect(res.headers.get('retry-after')).toBe('5');
      expect(res.text).not.toMatch(/ECONNREFUSED|3306/);
    });
  });
});
