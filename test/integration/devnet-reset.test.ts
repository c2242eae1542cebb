import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { resetDevnet } from '../../devnet/cli/reset';
import { dataDirInUse, DataDirInUseError, lockDataDir } from '../../shared/store/data-dir-lock';
import { openStore } from '../../shared/store/store';
import { newAccountClient } from '../helpers/api-client';
import { startApi } from '../helpers/api-harness';
import { createStoreTarget, describeEachStore, type StoreTarget } from '../helpers/store-targets';

describeEachStore('npm run devnet:reset', (kind) => {
  let target: StoreTarget;
  const lines: string[] = [];

  beforeAll(async () => {
    target = await createStoreTarget(kind);
    const running = await startApi(target);
    await newAccountClient(running.baseUrl, 'before-reset');
    await running.close();
    mkdirSync(path.join(target.dataDir, 'devnet', 'chain-1'), { recursive: true });
    writeFileSync(path.join(target.dataDir, 'devnet.json'), '{}');
  });
  afterAll(async () => target?.cleanup());

  const env = (): Record<string, string> => ({ DATA_DIR: target.dataDir, DATABASE_URL: target.databaseUrl });

  it('refuses while a service holds the data folder, which a second service cannot take either', async () => {
    const release = await lockDataDir(target.dataDir, () => undefined);
    try {
      await expect(lockDataDir(target.dataDir, () => undefined)).rejects.toThrow(
        new DataDirInUseError(target.dataDir),
      );
      const refused: string[] = [];
      expect(await resetDevnet(env(), ['--force'], (l) => refused.push(l))).toBe(3);
      expect(refused).toEqual([
        `DATA_DIR ${target.dataDir} is in use by a running service: stop it first (nothing was removed).`,
      ]);
      expect(existsSync(path.join(target.dataDir, 'devnet.json'))).toBe(true);
    } finally {
      await release();
    }
    expect(await dataDirInUse(target.dataDir)).toBe(false);
  });

  if (kind === 'mysql') {
    it('refuses to empty a MySQL store without --force and removes nothing', async () => {
      expect(await resetDevnet(env(), [], (l) => lines.push(l))).toBe(2);
      expect(existsSync(path.join(target.dataDir, 'devnet.json'))).toBe(true);
      const store = await openStore(target);
      expect(await store.accounts.list()).toHaveLength(1);
      await store.close();
    });
  }

  it('wipes the chains, the manifest and the store together, keeping the master key', async () => {
    expect(await resetDevnet(env(), ['--force'], (l) => lines.push(l))).toBe(0);
    expect(existsSync(path.join(target.dataDir, 'devnet'))).toBe(false);
    expect(existsSync(path.join(target.dataDir, 'devnet.json'))).toBe(false);
    expect(existsSync(path.join(target.dataDir, 'master.key'))).toBe(true);
    const store = await openStore(target);
    expect(await store.accounts.list()).toEqual([]);
    await store.close();
  });
});
