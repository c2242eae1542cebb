import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import * as passphraseHash from '../../api/gateway/passphrase-hash';
import { signRequest, type Credentials } from '../../shared/signing/request-signature';
import { newAccountClient, type ApiClient } from '../helpers/api-client';
import { startApi, type RunningApi } from '../helpers/api-harness';
import { requestFrom } from '../helpers/request-from';
import { createStoreTarget, describeEachStore, type StoreTarget } from '../helpers/store-targets';

const FORBIDDEN = '{"message":"Forbidden"}';
const TOO_MANY = '{"message":"Too Many Requests"}';
const CACHE_TTL_MS = 200;
const BURST = 10;

const signedChains = (credentials: Credentials) =>
  signRequest(credentials, { method: 'GET', url: '/api/v1/chains' }).headers;

/** Loopback addresses of a block of its own per test, so no test spends another's per-IP budget. */
let block = 10;
function addresses(count: number): string[] {
  block += 1;
  return Array.from({ length: count }, (_, i) => `127.0.${block}.${i + 1}`);
}

describeEachStore('gateway limits in one api process', (kind) => {
  let target: StoreTarget;
  /** Generous limits: creates accounts, so the limited api's budgets count only what a test sends it. */
  let open: RunningApi;
  /** Burst 10 and a refill slow enough (one token per 100 s) that nothing refills during a test. */
  let limited: RunningApi;
  let verify: jest.SpiedFunction<typeof passphraseHash.verifyPassphrase>;

  beforeAll(async () => {
    target = await createStoreTarget(kind);
    open = await startApi(target);
    limited = await startApi(target, {
      RATE_LIMIT_PER_SECOND: '0.01',
      RATE_LIMIT_BURST: String(BURST),
      ACCOUNT_CACHE_TTL_MS: String(CACHE_TTL_MS),
    });
    verify = jest.spyOn(passphraseHash, 'verifyPassphrase');
  });
  afterAll(async () => {
    verify?.mockRestore();
    await limited?.close();
    await open?.close();
    await target?.cleanup();
  });

  const get = (from: string, headers: Record<string, string>) =>
    requestFrom(from, limited.baseUrl, 'GET', '/chains', headers);

  it('limits a flood of bad signatures on an unknown key per IP, before authentication', async () => {
    const [attacker, other] = addresses(2);
    const stranger: Credentials = { apiKey: randomUUID(), secretKey: 'not-a-secret', passphrase: 'guess' };
    const answers = [];
    for (let i = 0; i < BURST + 5; i++) answers.push(await get(attacker, signedChains(stranger)));
    expect(answers.slice(0, BURST).map((a) => `${a.status} ${a.text}`)).toEqual(
      Array(BURST).fill(`403 ${FORBIDDEN}`),
    );
    expect(answers.slice(BURST).map((a) => `${a.status} ${a.text}`)).toEqual(
      Array(5).fill(`429 ${TOO_MANY}`),
    );
    expect(Number(answers[BURST]!.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    // The IP's budget is spent whatever it signs next; another IP is untouched.
    const client = await newAccountClient(open.baseUrl, 'ip-limit-tester');
    expect((await get(attacker, signedChains(client.credentials))).status).toBe(429);
    expect((await get(other, signedChains(client.credentials))).status).toBe(200);
  });

  it('spends a key budget only on requests the key signed, from whatever IP they come', async () => {
    const [attacker, ...clients] = addresses(BURST + 2);
    const victim = await newAccountClient(open.baseUrl, 'key-limit-victim');
    const forged = { ...victim.credentials, secretKey: 'not-the-secret' };
    for (let i = 0; i < 6; i++) expect((await get(attacker, signedChains(forged))).text).toBe(FORBIDDEN);
    const statuses = [];
    for (const from of clients.slice(0, BURST))
      statuses.push((await get(from, signedChains(victim.credentials))).status);
    expect(statuses).toEqual(Array(BURST).fill(200));
    // A fresh IP: only the key's own budget can refuse it, and another key from that IP still passes.
    const fresh = clients[BURST]!;
    const refused = await get(fresh, signedChains(victim.credentials));
    expect(`${refused.status} ${refused.text}`).toBe(`429 ${TOO_MANY}`);
    const other = await newAccountClient(open.baseUrl, 'key-limit-other');
    expect((await get(fresh, signedChains(other.credentials))).status).toBe(200);
  });

  it('verifies the passphrase of a burst of 100 concurrent requests on a new key once, and limits the burst', async () => {
    const client = await newAccountClient(open.baseUrl, 'burst-tester');
    verify.mockClear();
    // 100 IPs, so every request passes its IP's budget and reaches authentication.
    const answers = await Promise.all(
      addresses(100).map((from) => get(from, signedChains(client.credentials))),
    );
    expect(verify).toHaveBeenCalledTimes(1);
    const statuses = answers.map((a) => a.status);
    expect(statuses.filter((s) => s === 200)).toHaveLength(BURST);
    expect(statuses.filter((s) => s === 429)).toHaveLength(100 - BURST);
  });

  it('forgets the verified passphrase of a deactivated key: reactivated, it is verified anew', async () => {
    const [a, b, c] = addresses(3);
    const client: ApiClient = await newAccountClient(open.baseUrl, 'deactivation-tester');
    verify.mockClear();
    expect((await get(a, signedChains(client.credentials))).status).toBe(200);
    expect((await get(a, signedChains(client.credentials))).status).toBe(200);
    expect(verify).toHaveBeenCalledTimes(1);
    await limited.store.accounts.setActive(client.credentials.apiKey, false, Date.now());
    await sleep(CACHE_TTL_MS + 20);
    expect((await get(b, signedChains(client.credentials))).text).toBe(FORBIDDEN);
    await limited.store.accounts.setActive(client.credentials.apiKey, true, Date.now());
    await sleep(CACHE_TTL_MS + 20);
    expect((await get(c, signedChains(client.credentials))).status).toBe(200);
    expect(verify).toHaveBeenCalledTimes(2);
  });

  it('refuses the old passphrase once the stored one changed, and verifies the new one once', async () => {
    const [a, b] = addresses(2);
    const client = await newAccountClient(open.baseUrl, 'rotation-tester');
    expect((await get(a, signedChains(client.credentials))).status).toBe(200);
    const rotated = { ...client.credentials, passphrase: 'a-new-passphrase' };
    await limited.store
      .knex('accounts')
      .where({ api_key: client.credentials.apiKey })
      .update({ passphrase_hash: await passphraseHash.hashPassphrase(rotated.passphrase) });
    await sleep(CACHE_TTL_MS + 20);
    verify.mockClear();
    expect((await get(b, signedChains(client.credentials))).text).toBe(FORBIDDEN);
    expect((await get(b, signedChains(rotated))).status).toBe(200);
    expect((await get(b, signedChains(rotated))).status).toBe(200);
    expect(verify).toHaveBeenCalledTimes(2);
  });
});
