import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import type { FileHandle } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { isStoreUnreachable } from '../../shared/store/store-unreachable';
import { WalSync } from '../../shared/store/wal-sync';
import { fileHandlePrototype, holdSyncs, settled, until } from '../helpers/held-syncs';

describe('WalSync: the WAL fdatasync that makes a NORMAL commit durable, off the event loop', () => {
  let dir: string;
  let wal: string;

  beforeEach(() => {
    dir = mkdtempSync(path.join(tmpdir(), 'tas-wal-sync-'));
    wal = path.join(dir, 'store.sqlite-wal');
    writeFileSync(wal, 'frames');
  });
  afterEach(() => {
    jest.restoreAllMocks();
    rmSync(dir, { recursive: true, force: true });
  });

  it('syncs the WAL file itself, and resolves only once the sync is done', async () => {
    const held = holdSyncs(await fileHandlePrototype(wal));
    const sync = new WalSync(wal).sync();
    await until(() => held.held() === 1);
    expect(held.files).toEqual([wal]);
    expect(await settled(sync)).toBe('pending');
    held.releaseOne();
    await expect(sync).resolves.toBeUndefined();
  });

  it('gives callers that arrive during a sync the next one, which all of them share', async () => {
    const held = holdSyncs(await fileHandlePrototype(wal));
    const walSync = new WalSync(wal);
    const first = walSync.sync();
    await until(() => held.held() === 1);
    // These may have written after the first sync started: it cannot answer for them.
    const later = [walSync.sync(), walSync.sync(), walSync.sync()];
    held.releaseOne();
    await first;
    expect(await settled(Promise.race(later))).toBe('pending');
    await until(() => held.held() === 1);
    held.releaseOne();
    await Promise.all(later);
    expect(held.files).toEqual([wal, wal]);
  });

  it('fails as a store disk failure when the WAL cannot be synced, and tries again for the next caller', async () => {
    const walSync = new WalSync(path.join(dir, 'missing.sqlite-wal'));
    const failure = await walSync.sync().catch((err: unknown) => err);
    expect(failure).toMatchObject({ code: 'SQLITE_IOERR_FSYNC' });
    expect((failure as Error).message).toMatch(/^SQLite WAL sync failed: ENOENT/);
    expect(isStoreUnreachable(failure)).toBe(true);
    writeFileSync(path.join(dir, 'missing.sqlite-wal'), 'frames');
    await expect(walSync.sync()).resolves.toBeUndefined();
  });

  it('gives callers queued behind a failed sync a sync of their own', async () => {
    const proto = await fileHandlePrototype(wal);
    const original = proto.datasync;
    let calls = 0;
    let failFirst!: (err: Error) => void;
    jest.spyOn(proto, 'datasync').mockImplementation(function (this: FileHandle) {
      calls += 1;
      if (calls === 1) return new Promise<void>((_, reject) => (failFirst = reject));
      return original.call(this);
    });
    const walSync = new WalSync(wal);
    const first = walSync.sync();
    await until(() => calls === 1);
    const queued = walSync.sync();
    failFirst(Object.assign(new Error('EIO: i/o error, fdatasync'), { code: 'EIO' }));
    await expect(first).rejects.toMatchObject({ code: 'SQLITE_IOERR_FSYNC' });
    await expect(queued).resolves.toBeUndefined();
    expect(calls).toBe(2);
  });
});
