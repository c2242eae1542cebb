import path from 'node:path';
import { runAccountsCommand } from '../../api/cli/accounts';
import { newAccountClient, type ApiClient } from '../helpers/api-client';
import { REPO_ROOT, startApiOn } from '../helpers/api-harness';
import { describeEachStore } from '../helpers/store-targets';

describeEachStore('operator accounts CLI', (kind) => {
  let running: Awaited<ReturnType<typeof startApiOn>>;
  let client: ApiClient;
  let env: Record<string, string>;
  const lines: string[] = [];
  const run = (...args: string[]): Promise<number> => runAccountsCommand(args, (l) => lines.push(l), env);

  beforeAll(async () => {
    running = await startApiOn(kind, { ACCOUNT_CACHE_TTL_MS: '200' });
    client = await newAccountClient(running.baseUrl, 'cli-tester');
    env = {
      CHAINS_FILE: path.join(REPO_ROOT, 'config/chains.json'),
      DATA_DIR: running.target.dataDir,
      DATABASE_URL: running.target.databaseUrl,
    };
  });
  afterAll(async () => running?.close());
  beforeEach(() => lines.splice(0));

  it('lists accounts without secrets', async () => {
    expect(await run('list')).toBe(0);
    expect(lines[0]).toBe(`1 account(s) in the ${kind} store`);
    expect(lines[1]).toMatch(new RegExp(`^${client.credentials.apiKey}\\s+active\\s+\\S+Z\\s+cli-tester$`));
    expect(lines.join('\n')).not.toContain(client.credentials.secretKey);
  });

  it('deactivates a key: the gateway answers 403 within the cache TTL; activation restores it', async () => {
    expect((await client.get('/chains')).status).toBe(200);
    expect(await run('deactivate', client.credentials.apiKey)).toBe(0);
    expect(lines).toEqual([`Account ${client.credentials.apiKey} deactivated`]);
    await new Promise((r) => setTimeout(r, 250));
    const refused = await client.get('/chains');
    expect(refused.status).toBe(403);
    expect(refused.body).toEqual({ message: 'Forbidden' });

    expect(await run('activate', client.credentials.apiKey)).toBe(0);
    await new Promise((r) => setTimeout(r, 250));
    expect((await client.get('/chains')).status).toBe(200);
  });

  it('reports an unknown key and a bad command', async () => {
    expect(await run('deactivate', '00000000-0000-4000-8000-000000000000')).toBe(1);
    expect(lines).toEqual(['No account with API key 00000000-0000-4000-8000-000000000000']);
    expect(await run('remove')).toBe(2);
    expect(lines[1]).toMatch(/^usage: npm run accounts -- list/);
  });
});
