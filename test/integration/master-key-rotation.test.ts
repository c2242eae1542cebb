import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { runAccountsCommand } from '../../api/cli/accounts';
import { SecretBox } from '../../shared/signing/secret-box';
import { ApiClient, newAccountClient } from '../helpers/api-client';
import { REPO_ROOT, startApi, type RunningApi } from '../helpers/api-harness';
import { createStoreTarget, describeEachStore, type StoreTarget } from '../helpers/store-targets';

const OLD = randomBytes(32).toString('hex');
const NEW = randomBytes(32).toString('hex');

/**
 * Rotating the master key on a live store: processes given the new key and the previous one serve every account,
 * `npm run accounts -- reseal` seals every stored secret (accounts' and webhooks') under the new key, and then the
 * previous key can go.
 */
describeEachStore('master key rotation', (kind) => {
  let target: StoreTarget;
  let api: RunningApi | undefined;
  const lines: string[] = [];
  const cli = (env: Record<string, string>, ...args: string[]): Promise<number> =>
    runAccountsCommand(args, (l) => lines.push(l), {
      CHAINS_FILE: path.join(REPO_ROOT, 'config/chains.json'),
      DATA_DIR: target.dataDir,
      DATABASE_URL: target.databaseUrl,
      ...env,
    });
  const restart = async (env: Record<string, string>): Promise<string> => {
    await api?.close();
    api = await startApi(target, env);
    return api.baseUrl;
  };

  beforeAll(async () => {
    target = await createStoreTarget(kind);
  });
  afterAll(async () => {
    await api?.close();
    await target?.cleanup();
  });
  beforeEach(() => lines.splice(0));

  it('serves old accounts during the rotation, reseals every secret once, and needs only the new key after', async () => {
    const first = await restart({ MASTER_KEY: OLD });
    const client = await newAccountClient(first, 'before-rotation');
    const hook = await client.post<{ id: string }>('/webhooks', { url: 'https://example.com/hook' });
    expect(hook.status).toBe(200);

    // The new key alone cannot open what the old one sealed: the account is refused, never served unverified.
    const onlyNew = new ApiClient(await restart({ MASTER_KEY: NEW }), client.credentials);
    expect((await onlyNew.get('/chains')).status).not.toBe(200);

    // Both keys: the old account works, and a new account is sealed under the new key.
    const rotating = await restart({ MASTER_KEY: NEW, MASTER_KEY_PREVIOUS: OLD });
    expect((await new ApiClient(rotating, client.credentials).get('/chains')).status).toBe(200);
    const later = await newAccountClient(rotating, 'during-rotation');

    expect(await cli({ MASTER_KEY: NEW, MASTER_KEY_PREVIOUS: OLD }, 'reseal')).toBe(0);
    expect(lines).toEqual([
      'Resealed under MASTER_KEY: 1 account secret(s), 1 webhook secret(s); 1 already under it',
    ]);
    lines.splice(0);
    expect(await cli({ MASTER_KEY: NEW, MASTER_KEY_PREVIOUS: OLD }, 'reseal')).toBe(0);
    expect(lines).toEqual([
      'Resealed under MASTER_KEY: 0 account secret(s), 0 webhook secret(s); 3 already under it',
    ]);

    // The previous key is gone: every account and webhook secret opens under the new key alone.
    const after = await restart({ MASTER_KEY: NEW });
    expect((await new ApiClient(after, client.credentials).get('/chains')).status).toBe(200);
    expect((await new ApiClient(after, later.credentials).get('/chains')).status).toBe(200);
    const box = new SecretBox(Buffer.from(NEW, 'hex'));
    const webhooks = await api!.store.knex('webhooks').select('id', 'secret_sealed');
    expect(webhooks).toHaveLength(1);
    expect(() => box.open(webhooks[0].secret_sealed as string, webhooks[0].id as string)).not.toThrow();
    expect(webhooks[0].id).toBe(hook.body.data!.id);
  });

  it('refuses to run without the previous key, and names a secret neither key opens, leaving it as it is', async () => {
    expect(await cli({ MASTER_KEY: NEW }, 'reseal')).toBe(2);
    expect(lines).toEqual([
      'reseal needs MASTER_KEY_PREVIOUS (the key being rotated out) and MASTER_KEY (the new one)',
    ]);
    lines.splice(0);
    const stranger = new SecretBox(randomBytes(32)).seal('not ours', 'x');
    const [row] = await api!.store.knex('accounts').select('api_key').limit(1);
    await api!.store.knex('accounts').where({ api_key: row.api_key }).update({ secret_encrypted: stranger });
    expect(await cli({ MASTER_KEY: NEW, MASTER_KEY_PREVIOUS: OLD }, 'reseal')).toBe(1);
    expect(lines).toContain(
      `Neither key opens the secret of accounts ${row.api_key as string}: left as it is`,
    );
    const [unchanged] = await api!.store
      .knex('accounts')
      .where({ api_key: row.api_key })
      .select('secret_encrypted');
    expect(unchanged.secret_encrypted).toBe(stranger);
    // Nothing printed names a secret or a key.
    expect(lines.join('\n')).not.toContain(NEW);
    expect(lines.join('\n')).not.toContain(OLD);
  });
});
