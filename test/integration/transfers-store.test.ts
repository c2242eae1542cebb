import type { NewTransfer } from '../../shared/store/repositories/transfers-repository';
import { openStore, type Store } from '../../shared/store/store';
import { createStoreTarget, describeEachStore, type StoreTarget } from '../helpers/store-targets';

const NOW = 1_800_000_000_000;
const LEASE_MS = 30_000;
const OWNER_A = 'keeper-a';
const OWNER_B = 'keeper-b';
const SPOKE = '0x5FbDB2315678afecb367f032d93F642f64180aa3';

const hash = (n: number): string => `0x${n.toString(16).padStart(64, '0')}`;
const bytes32 = (address: string): string => `0x${address.slice(2).toLowerCase().padStart(64, '0')}`;

let seq = 0;
function deposit(overrides: Partial<NewTransfer> = {}): NewTransfer {
  seq += 1;
  return {
    provider: 'intent',
    originChainId: 1,
    destinationChainId: 137,
    depositId: String(seq),
    depositor: bytes32('0x90F79bf6EB2c4f870365E785982E1f101E93b906'),
    recipient: bytes32('0x90F79bf6EB2c4f870365E785982E1f101E93b906'),
    exclusiveRelayer: bytes32('0x70997970C51812dc3A010C7d01b50e0d17dc79C8'),
    inputToken: bytes32('0xA0b86991c6218b36c1d19D4a2e9Eb0cE3606eB48'),
    outputToken: bytes32('0x2791Bca1f2de4661ED88A30C99A7a9449Aa84174'),
    // Past 2^64: amounts must round-trip exactly.
    inputAmount: 123_456_789_012_345_678_901_234n,
    outputAmount: 123_456_789_012_345_678_900_000n,
    message: '0x',
    quoteTimestamp: 1_800_000_000,
    fillDeadline: 1_800_000_600,
    exclusivityDeadline: 1_800_000_030,
    relayHash: hash(9000 + seq),
    originContract: SPOKE,
    depositTxHash: hash(seq),
    depositBlockNumber: 100 + seq,
    depositBlockHash: hash(5000 + seq),
    depositLogIndex: 0,
    ...overrides,
  };
}

describeEachStore('transfers store', (kind) => {
  let target: StoreTarget;
  let store: Store;
  let other: Store;

  beforeAll(async () => {
    target = await createStoreTarget(kind);
    store = await openStore({ databaseUrl: target.databaseUrl, dataDir: target.dataDir });
    // A second keeper process has its own connections on MySQL; on SQLite keepers share the process's store.
    other =
      kind === 'mysql'
        ? await openStore({ databaseUrl: target.databaseUrl, dataDir: target.dataDir })
        : store;
  });

  afterAll(async () => {
    if (other && other !== store) await other.close();
    await store?.close();
    await target?.cleanup();
  });

  beforeEach(async () => {
    for (const table of ['cross_chain_root_bundles', 'cross_chain_transfers', 'cross_chain_cursors'])
      await store.knex(table).del();
  });

  async function stored(d: NewTransfer = deposit()) {
    expect(await store.transfers.upsertDeposit(d, NOW)).toBe('inserted');
    const row = await store.transfers.findByDeposit(d.provider, d.originChainId, d.depositId);
    if (!row) throw new Error('not stored');
    return row;
  }

  it('stores one row per (provider, origin, deposit id) with exact amounts', async () => {
    const d = deposit();
    const row = await stored(d);
    expect(row).toMatchObject({
      provider: 'intent',
      status: 'deposited',
      inputAmount: d.inputAmount,
      outputAmount: d.outputAmount,
      fillDeadline: d.fillDeadline,
      depositBlockHash: d.depositBlockHash,
      fillTxHash: null,
      refund: null,
      repayment: null,
      attempts: 0,
    });
    expect(await store.transfers.upsertDeposit(d, NOW + 1)).toBe('unchanged');
    // The same deposit id under the other provider or origin is another transfer.
    await stored({ ...d, provider: 'lock-release' });
    await stored({ ...d, originChainId: 10 });
    expect(await store.knex('cross_chain_transfers').count({ n: '*' })).toEqual([{ n: 3 }]);
    expect((await store.transfers.findByDeposit('lock-release', 1, d.depositId))?.status).toBe('locked');
    expect(await store.transfers.listByDepositTx(1, d.depositTxHash)).toHaveLength(2);
  });

  it('claims a transfer for exactly one of two keepers', async () => {
    const rows = await Promise.all(Array.from({ length: 20 }, () => stored()));
    const results = await Promise.all(
      rows.flatMap((row) => [
        store.transfers.claim(row.id, OWNER_A, LEASE_MS, NOW),
        other.transfers.claim(row.id, OWNER_B, LEASE_MS, NOW),
      ]),
    );
    for (let i = 0; i < rows.length; i++) {
      const [a, b] = [results[2 * i], results[2 * i + 1]];
      expect([a, b].filter(Boolean)).toHaveLength(1);
      const claimed = (a ?? b)!;
      expect(claimed.status).toBe('filling');
      expect(claimed.leaseOwner).toBe(a ? OWNER_A : OWNER_B);
    }
    expect(await store.transfers.listWaiting('intent', 137, NOW, 100)).toHaveLength(0);
  });

  it('records the signed fill only for the lease owner, and only while the lease holds', async () => {
    const row = await stored();
    await store.transfers.claim(row.id, OWNER_A, LEASE_MS, NOW);
    const tx = { txHash: hash(77), rawTx: '0x02f8', sender: SPOKE, nonce: 3, sentBlock: 10 };
    expect(await store.transfers.markSubmitted(row.id, OWNER_B, tx, LEASE_MS, NOW)).toBe(false);
    expect(await store.transfers.markSubmitted(row.id, OWNER_A, tx, LEASE_MS, NOW + LEASE_MS + 1)).toBe(
      false,
    );
    expect(await store.transfers.markSubmitted(row.id, OWNER_A, tx, LEASE_MS, NOW + 1)).toBe(true);
    expect(await store.transfers.findById(row.id)).toMatchObject({
      fillTxHash: hash(77),
      fillRawTx: '0x02f8',
      fillNonce: 3,
      fillSentBlock: 10,
    });
    expect((await store.transfers.listInFlight('intent', 137, OWNER_A)).map((t) => t.id)).toEqual([row.id]);
  });

  it('records a fee replacement of the fill for its owner, keeping every hash, and only over the current one', async () => {
    const row = await stored();
    await store.transfers.claim(row.id, OWNER_A, LEASE_MS, NOW);
    const tx = { txHash: hash(77), rawTx: '0x02f8', sender: SPOKE, nonce: 3, sentBlock: 10 };
    expect(await store.transfers.markSubmitted(row.id, OWNER_A, tx, LEASE_MS, NOW + 1)).toBe(true);
    expect(await store.transfers.findById(row.id)).toMatchObject({
      fillTxHashes: [hash(77)],
      fillLastSentBlock: 10,
    });
    const bump = { txHash: hash(78), rawTx: '0x02f9', sentBlock: 13 };
    expect(
      await store.transfers.recordFillReplacement(row.id, OWNER_B, hash(77), bump, LEASE_MS, NOW + 2),
    ).toBe(false);
    // Replacing a copy that is no longer the current one: another bump got there first.
    expect(
      await store.transfers.recordFillReplacement(row.id, OWNER_A, hash(76), bump, LEASE_MS, NOW + 2),
    ).toBe(false);
    expect(
      await store.transfers.recordFillReplacement(row.id, OWNER_A, hash(77), bump, LEASE_MS, NOW + 2),
    ).toBe(true);
    expect(await store.transfers.findById(row.id)).toMatchObject({
      status: 'filling',
      fillTxHash: hash(78),
      fillTxHashes: [hash(77), hash(78)],
      fillRawTx: '0x02f9',
      fillNonce: 3,
      fillSentBlock: 10,
      fillLastSentBlock: 13,
      leaseExpiresAt: NOW + 2 + LEASE_MS,
    });
    // The first copy was the one mined: it is the fill.
    expect(
      await store.transfers.markFilled(
        row.id,
        { txHash: hash(77), blockNumber: 12, blockHash: hash(12) },
        NOW + 3,
      ),
    ).toBe(true);
    expect(await store.transfers.findById(row.id)).toMatchObject({ status: 'filled', fillTxHash: hash(77) });
  });

  it('sends done transfers whose destination block was reorged back in flight, a released lock too', async () => {
    const fill = await stored();
    const lock = await stored(deposit({ provider: 'lock-release' }));
    for (const [i, row] of [fill, lock].entries()) {
      await store.transfers.claim(row.id, OWNER_A, LEASE_MS, NOW);
      const tx = { txHash: hash(80 + i), rawTx: '0x02f8', sender: SPOKE, nonce: i, sentBlock: 10 };
      expect(await store.transfers.markSubmitted(row.id, OWNER_A, tx, LEASE_MS, NOW + 1)).toBe(true);
      const at = { txHash: hash(80 + i), blockNumber: 20 + i, blockHash: hash(200 + i) };
      expect(await store.transfers.markFilled(row.id, at, NOW + 2)).toBe(true);
    }
    expect((await store.transfers.listDoneSince('intent', 137, 20)).map((t) => t.id)).toEqual([fill.id]);
    expect((await store.transfers.listDoneSince('lock-release', 137, 21)).map((t) => t.id)).toEqual([
      lock.id,
    ]);
    expect(await store.transfers.listDoneSince('lock-release', 137, 22)).toEqual([]);
    expect(await store.transfers.listDoneSince('intent', 10, 0)).toEqual([]);

    expect(await store.transfers.markFillReorged(lock.id, OWNER_B, LEASE_MS, NOW + 3)).toBe(true);
    expect(await store.transfers.findById(lock.id)).toMatchObject({
      status: 'releasing',
      fillBlockNumber: null,
      fillBlockHash: null,
      leaseOwner: OWNER_B,
    });
    expect(await store.transfers.markFillReorged(lock.id, OWNER_B, LEASE_MS, NOW + 3)).toBe(false);
    expect(await store.transfers.markFillReorged(fill.id, OWNER_B, LEASE_MS, NOW + 3)).toBe(true);
    expect(await store.transfers.findById(fill.id)).toMatchObject({ status: 'filling', leaseOwner: OWNER_B });
    expect(await store.transfers.listDoneSince('intent', 137, 0)).toEqual([]);
  });

  it("keeps another relayer's fill, rechecked against reorgs like ours: reorged away, the deposit waits to be filled again", async () => {
    const waiting = await stored();
    const claimed = await stored(deposit({ depositId: '2' }));
    await store.transfers.claim(claimed.id, OWNER_A, LEASE_MS, NOW);
    const theirs = { txHash: hash(120), blockNumber: 40, blockHash: hash(121) };
    expect(await store.transfers.markFilledByOther(waiting.id, bytes32(SPOKE), theirs, NOW + 1)).toBe(true);
    expect(
      await store.transfers.markFilledByOther(
        claimed.id,
        bytes32(SPOKE),
        { ...theirs, blockNumber: 41 },
        NOW + 1,
      ),
    ).toBe(true);
    expect(await store.transfers.findById(waiting.id)).toMatchObject({
      status: 'filled_by_other',
      filledBy: bytes32(SPOKE),
      fillTxHash: hash(120),
      fillBlockNumber: 40,
      fillBlockHash: hash(121),
      fillRawTx: null,
      leaseOwner: null,
    });
    expect((await store.transfers.listDoneSince('intent', 137, 40)).map((t) => t.id)).toEqual([
      waiting.id,
      claimed.id,
    ]);
    expect((await store.transfers.listDoneSince('intent', 137, 41)).map((t) => t.id)).toEqual([claimed.id]);

    expect(await store.transfers.markOtherFillReorged(waiting.id, NOW + 2)).toBe(true);
    expect(await store.transfers.findById(waiting.id)).toMatchObject({
      status: 'deposited',
      filledBy: null,
      fillTxHash: null,
      fillBlockNumber: null,
      fillBlockHash: null,
      leaseOwner: null,
      nextAttemptAt: 0,
    });
    // Once: a second recheck finds nothing to reopen; our own moves apply to it again.
    expect(await store.transfers.markOtherFillReorged(waiting.id, NOW + 3)).toBe(false);
    expect(await store.transfers.markFillReorged(claimed.id, OWNER_B, LEASE_MS, NOW + 3)).toBe(false);
    expect((await store.transfers.claim(waiting.id, OWNER_B, LEASE_MS, NOW + 3))?.status).toBe('filling');
    expect((await store.transfers.listDoneSince('intent', 137, 0)).map((t) => t.id)).toEqual([claimed.id]);
  });

  it('hands back an expired claim with nothing signed, and a signed one only to a keeper that follows it', async () => {
    const [unsigned, signed] = [await stored(), await stored()];
    await store.transfers.claim(unsigned.id, OWNER_A, LEASE_MS, NOW);
    await store.transfers.claim(signed.id, OWNER_A, LEASE_MS, NOW);
    const tx = { txHash: hash(78), rawTx: '0x02f9', sender: SPOKE, nonce: 4, sentBlock: 11 };
    await store.transfers.markSubmitted(signed.id, OWNER_A, tx, LEASE_MS, NOW);

    // Before expiry nothing moves.
    expect(await other.transfers.reclaimExpiredLeases(NOW + 1000)).toEqual([]);
    expect(await other.transfers.takeOverExpired('intent', 137, OWNER_B, LEASE_MS, NOW + 1000)).toEqual([]);

    const later = NOW + LEASE_MS + 1;
    expect(await other.transfers.reclaimExpiredLeases(later)).toEqual([unsigned.id]);
    expect((await store.transfers.findById(unsigned.id))?.status).toBe('deposited');
    // Its own owner (a lease it could not renew, the store away) follows it still: nothing to take over.
    expect(await store.transfers.takeOverExpired('intent', 137, OWNER_A, LEASE_MS, later)).toEqual([]);
    // The signed one keeps its transaction: the new owner follows it rather than signing another.
    const taken = await other.transfers.takeOverExpired('intent', 137, OWNER_B, LEASE_MS, later);
    expect(taken.map((t) => [t.id, t.status, t.leaseOwner, t.fillTxHash])).toEqual([
      [signed.id, 'filling', OWNER_B, hash(78)],
    ]);
    // The old owner lost it: it can neither record nor release.
    expect(await store.transfers.markSubmitted(signed.id, OWNER_A, tx, LEASE_MS, later)).toBe(false);
    expect(await store.transfers.releaseLease(signed.id, OWNER_A, later)).toBe(false);
    expect(await other.transfers.renewLease(signed.id, OWNER_B, LEASE_MS, later)).toBe(true);
  });

  it('retries after a revert with back-off, counting the attempt and keeping the error', async () => {
    const row = await stored();
    await store.transfers.claim(row.id, OWNER_A, LEASE_MS, NOW);
    await store.transfers.markSubmitted(
      row.id,
      OWNER_A,
      { txHash: hash(79), rawTx: '0x02', sender: SPOKE, nonce: 5, sentBlock: 12 },
      LEASE_MS,
      NOW,
    );
    expect(
      await store.transfers.releaseLease(row.id, OWNER_A, NOW + 1, {
        nextAttemptAt: NOW + 5000,
        error: 'reverted',
        attempt: true,
      }),
    ).toBe(true);
    expect(await store.transfers.findById(row.id)).toMatchObject({
      status: 'deposited',
      attempts: 1,
      lastError: 'reverted',
      nextAttemptAt: NOW + 5000,
      fillTxHash: null,
      leaseOwner: null,
    });
    expect(await store.transfers.claim(row.id, OWNER_B, LEASE_MS, NOW + 4999)).toBeUndefined();
    expect(await store.transfers.listWaiting('intent', 137, NOW + 4999, 10)).toEqual([]);
    expect((await store.transfers.claim(row.id, OWNER_B, LEASE_MS, NOW + 5000))?.leaseOwner).toBe(OWNER_B);
  });

  it('moves status only from the states each move starts from', async () => {
    const row = await stored();
    const fill = { txHash: hash(80), blockNumber: 50, blockHash: hash(81) };
    // An expiry only from deposited; a fill in flight blocks it.
    await store.transfers.claim(row.id, OWNER_A, LEASE_MS, NOW);
    expect(await store.transfers.markExpired(row.id, NOW)).toBe(false);
    expect(await store.transfers.markReorged(row.id, NOW)).toBe(false);
    expect(await store.transfers.markFilled(row.id, fill, NOW)).toBe(true);
    expect(await store.transfers.findById(row.id)).toMatchObject({
      status: 'filled',
      fillTxHash: hash(80),
      fillBlockNumber: 50,
      leaseOwner: null,
    });
    // Filled is final for the fill moves.
    expect(await store.transfers.markFilledByOther(row.id, null, undefined, NOW)).toBe(false);
    expect(await store.transfers.markExpired(row.id, NOW)).toBe(false);
    expect(await store.transfers.claim(row.id, OWNER_B, LEASE_MS, NOW)).toBeUndefined();
    expect(await store.transfers.releaseLease(row.id, OWNER_A, NOW)).toBe(false);

    const expiring = await stored();
    expect(await store.transfers.markExpired(expiring.id, NOW)).toBe(true);
    expect(await store.transfers.claim(expiring.id, OWNER_A, LEASE_MS, NOW)).toBeUndefined();
    expect(await store.transfers.markFilled(expiring.id, fill, NOW)).toBe(false);

    const other1 = await stored();
    expect(await store.transfers.markFilledByOther(other1.id, bytes32(SPOKE), undefined, NOW)).toBe(true);
    expect(await store.transfers.markExpired(other1.id, NOW)).toBe(false);
    // Its fill not found: nothing to check against a reorg, no destination transaction to name.
    expect(await store.transfers.findById(other1.id)).toMatchObject({
      status: 'filled_by_other',
      fillTxHash: null,
      fillBlockNumber: null,
    });

    const lock = await stored(deposit({ provider: 'lock-release' }));
    expect(await store.transfers.markExpired(lock.id, NOW)).toBe(false);
    expect(await store.transfers.markFilledByOther(lock.id, null, undefined, NOW)).toBe(false);
    expect((await store.transfers.claim(lock.id, OWNER_A, LEASE_MS, NOW))?.status).toBe('releasing');
    expect(await store.transfers.markFilled(lock.id, fill, NOW)).toBe(true);
    expect((await store.transfers.findById(lock.id))?.status).toBe('released');
  });

  it("names a lock by its origin bridge too: a redeployed bridge's nonce 0 is another transfer", async () => {
    const oldBridge = '0x1111111111111111111111111111111111111111';
    const newBridge = '0x2222222222222222222222222222222222222222';
    const first = deposit({ provider: 'lock-release', depositId: '0', originContract: oldBridge });
    const second = deposit({ provider: 'lock-release', depositId: '0', originContract: newBridge });
    expect(await store.transfers.upsertDeposit(first, NOW)).toBe('inserted');
    const released = await store.transfers.findByDeposit('lock-release', 1, '0', oldBridge);
    await store.transfers.claim(released!.id, OWNER_A, LEASE_MS, NOW);
    const fill = { txHash: hash(90), blockNumber: 60, blockHash: hash(91) };
    expect(await store.transfers.markFilled(released!.id, fill, NOW)).toBe(true);
    // The new bridge's lock under the same nonce is stored apart and leaves the old one released.
    expect(await store.transfers.upsertDeposit(second, NOW)).toBe('inserted');
    expect(await store.transfers.findByDeposit('lock-release', 1, '0', oldBridge)).toMatchObject({
      status: 'released',
      depositTxHash: first.depositTxHash,
    });
    expect(await store.transfers.findByDeposit('lock-release', 1, '0', newBridge)).toMatchObject({
      status: 'locked',
      depositTxHash: second.depositTxHash,
    });
  });

  it('sums the releases outstanding out of a destination bridge: sent or queued, not waiting or paid', async () => {
    const token = '0x2791Bca1f2de4661ED88A30C99A7a9449Aa84174';
    const lock = (amount: bigint) =>
      deposit({ provider: 'lock-release', outputToken: token, outputAmount: amount });
    const sent = await stored(lock(10n));
    const queued = await stored(lock(200n));
    const paid = await stored(lock(3_000n));
    await stored(lock(40_000n));
    await stored(deposit({ provider: 'lock-release', destinationChainId: 10, outputToken: token }));
    const fill = { txHash: hash(60), blockNumber: 30, blockHash: hash(61) };
    for (const row of [sent, queued, paid]) await store.transfers.claim(row.id, OWNER_A, LEASE_MS, NOW);
    expect(await store.transfers.markReleaseQueued(queued.id, fill, NOW)).toBe(true);
    expect(await store.transfers.markFilled(paid.id, fill, NOW)).toBe(true);
    expect(await store.transfers.sumReleasesOutstanding(137, token.toLowerCase())).toBe(210n);
    expect(await store.transfers.sumReleasesOutstanding(137, token)).toBe(210n);
    expect(await store.transfers.sumReleasesOutstanding(10, token)).toBe(0n);
  });

  it('lists the longest-due waiting transfers first: rows put off never hold the page against newer ones', async () => {
    const [oldest, middle, newest] = [await stored(), await stored(), await stored()];
    // The oldest deposit was put off (a junk row tried again and again), the others are due since they came.
    expect(await store.transfers.postpone(oldest.id, NOW + 5_000, 'not yet', NOW)).toBe(true);
    expect((await store.transfers.listWaiting('intent', 137, NOW, 10)).map((t) => t.id)).toEqual([
      middle.id,
      newest.id,
    ]);
    expect((await store.transfers.listWaiting('intent', 137, NOW + 5_000, 2)).map((t) => t.id)).toEqual([
      middle.id,
      newest.id,
    ]);
    expect((await store.transfers.listWaiting('intent', 137, NOW + 5_000, 3)).map((t) => t.id)).toEqual([
      middle.id,
      newest.id,
      oldest.id,
    ]);
  });

  it('moves a lock through a delayed release, a cancelled one, and a refund', async () => {
    const lock = await stored(deposit({ provider: 'lock-release' }));
    const queuedAt = { txHash: hash(70), blockNumber: 40, blockHash: hash(71) };
    await store.transfers.claim(lock.id, OWNER_A, LEASE_MS, NOW);
    expect(await store.transfers.markReleaseQueued(lock.id, queuedAt, NOW)).toBe(true);
    expect(await store.transfers.findById(lock.id)).toMatchObject({
      status: 'release_queued',
      fillTxHash: hash(70),
      leaseOwner: null,
    });
    expect((await store.transfers.listReleaseQueued(137, 10)).map((t) => t.id)).toEqual([lock.id]);
    // Not claimable, not refundable while its release waits.
    expect(await store.transfers.claim(lock.id, OWNER_B, LEASE_MS, NOW)).toBeUndefined();
    expect(await store.transfers.markLockRefunded(lock.id, 'refunded', NOW)).toBe(false);
    // Paid: released from release_queued.
    const paid = { txHash: hash(72), blockNumber: 41, blockHash: hash(73) };
    expect(await store.transfers.markFilled(lock.id, paid, NOW)).toBe(true);
    expect(await store.transfers.findById(lock.id)).toMatchObject({
      status: 'released',
      fillTxHash: hash(72),
    });
    expect(await store.transfers.markLockRefunded(lock.id, 'refunded', NOW)).toBe(false);
    expect(await store.transfers.markReleaseCancelled(lock.id, 'cancelled', NOW)).toBe(false);

    // The owner cancels a queued one: final for the keeper, never sent again on its own.
    const vetoed = await stored(deposit({ provider: 'lock-release' }));
    expect(await store.transfers.markReleaseQueued(vetoed.id, queuedAt, NOW)).toBe(true);
    expect(await store.transfers.markReleaseCancelled(vetoed.id, 'cancelled', NOW)).toBe(true);
    expect(await store.transfers.findById(vetoed.id)).toMatchObject({ status: 'release_cancelled' });
    expect(await store.transfers.listWaiting('lock-release', 137, NOW + 10 * 3_600_000, 10)).toEqual([]);
    expect(await store.transfers.claim(vetoed.id, OWNER_A, LEASE_MS, NOW)).toBeUndefined();
    expect(await store.transfers.markFilled(vetoed.id, paid, NOW)).toBe(false);

    // Refused: final for the keeper, only from locked.
    const junk = await stored(deposit({ provider: 'lock-release' }));
    expect(await store.transfers.postpone(junk.id, NOW + 1, 'no fees', NOW, true)).toBe(true);
    expect((await store.transfers.findById(junk.id))?.attempts).toBe(1);
    expect(await store.transfers.markLockRefused(junk.id, 'no fees', NOW)).toBe(true);
    expect(await store.transfers.findById(junk.id)).toMatchObject({
      status: 'refused',
      lastError: 'no fees',
    });
    expect(await store.transfers.markLockRefused(junk.id, 'again', NOW)).toBe(false);
    expect(await store.transfers.markLockRefunded(junk.id, 'refunded', NOW)).toBe(false);

    const refused = await stored(deposit({ provider: 'lock-release' }));
    expect(await store.transfers.markLockRefunded(refused.id, 'refunded on its origin', NOW)).toBe(true);
    expect((await store.transfers.findById(refused.id))?.status).toBe('refunded');
    expect(await store.transfers.claim(refused.id, OWNER_A, LEASE_MS, NOW)).toBeUndefined();
    // An intent is never a lock's refund.
    const intent = await stored();
    expect(await store.transfers.markLockRefunded(intent.id, 'refunded', NOW)).toBe(false);
  });

  it('sets aside a reorged deposit and takes it back, with its new block, when it is read again', async () => {
    const d = deposit();
    const row = await stored(d);
    expect(await store.transfers.markReorged(row.id, NOW)).toBe(true);
    expect(await store.transfers.listWaiting('intent', 137, NOW, 10)).toEqual([]);
    expect(await store.transfers.claim(row.id, OWNER_A, LEASE_MS, NOW)).toBeUndefined();
    const moved = { ...d, depositBlockNumber: d.depositBlockNumber + 1, depositBlockHash: hash(6000) };
    expect(await store.transfers.upsertDeposit(moved, NOW + 1)).toBe('updated');
    expect(await store.transfers.findById(row.id)).toMatchObject({
      status: 'deposited',
      depositBlockNumber: d.depositBlockNumber + 1,
      depositBlockHash: hash(6000),
    });
    // Once claimed, a re-read never rewrites the deposit under the keeper.
    await store.transfers.claim(row.id, OWNER_A, LEASE_MS, NOW + 2);
    expect(await store.transfers.upsertDeposit({ ...moved, depositBlockHash: hash(6001) }, NOW + 3)).toBe(
      'unchanged',
    );
    expect((await store.transfers.findById(row.id))?.depositBlockHash).toBe(hash(6000));
  });

  it('sums exactly what was paid out of a token on a destination in the window, both providers', async () => {
    const usdc137 = '0x2791Bca1f2de4661ED88A30C99A7a9449Aa84174';
    const HOUR = 3_600_000;
    /** A transfer whose destination transaction was signed at `sentAt`, then moved to `status`. */
    const paid = async (d: NewTransfer, sentAt: number, status: string) => {
      const row = await stored(d);
      expect(await store.transfers.claim(row.id, OWNER_A, LEASE_MS, sentAt)).toBeDefined();
      const tx = { txHash: hash(seq), rawTx: '0x02', sender: SPOKE, nonce: seq, sentBlock: 1 };
      expect(await store.transfers.markSubmitted(row.id, OWNER_A, tx, LEASE_MS, sentAt)).toBe(true);
      // Settlement states are the settle stage's to reach; their columns do not matter to the sum.
      await store.knex('cross_chain_transfers').where({ id: row.id }).update({ status });
      return row;
    };
    const big = 2n ** 70n + 7n;
    // Counted: our fills and releases in flight or done within the hour, the bytes32 (intent) and the address
    // (lock-release, checksummed) forms of the token alike; sums past 2^64 stay exact.
    await paid(deposit({ outputAmount: big }), NOW - 10_000, 'filling');
    await paid(deposit({ outputAmount: 2n }), NOW - HOUR, 'filled');
    await paid(deposit({ outputAmount: 3n }), NOW - 60_000, 'repaid');
    await paid(
      deposit({ provider: 'lock-release', outputToken: usdc137, outputAmount: 5n }),
      NOW,
      'released',
    );
    // Not counted: sent before the hour, filled by another relayer, another chain, another token, not sent.
    await paid(deposit({ outputAmount: 1_000n }), NOW - HOUR - 1, 'filled');
    await paid(deposit({ outputAmount: 2_000n }), NOW, 'filled_by_other');
    await paid(deposit({ outputAmount: 4_000n, destinationChainId: 10 }), NOW, 'filled');
    await paid(deposit({ outputAmount: 8_000n, outputToken: bytes32(SPOKE) }), NOW, 'filled');
    await stored(deposit({ outputAmount: 16_000n }));
    const claimed = await stored(deposit({ outputAmount: 32_000n }));
    await store.transfers.claim(claimed.id, OWNER_A, LEASE_MS, NOW);

    const expected = big + 2n + 3n + 5n;
    expect(await store.transfers.sumOutputSentSince(137, usdc137, NOW - HOUR)).toBe(expected);
    expect(await other.transfers.sumOutputSentSince(137, usdc137.toLowerCase(), NOW - HOUR)).toBe(expected);
    expect(await store.transfers.sumOutputSentSince(137, usdc137, NOW + 1)).toBe(0n);
    expect(await store.transfers.sumOutputSentSince(10, usdc137, NOW - HOUR)).toBe(4_000n);
  });

  it('keeps scan cursors per chain and contract', async () => {
    expect(await store.transfers.cursor(1, SPOKE)).toBeUndefined();
    await store.transfers.setCursor(1, SPOKE, 10, hash(10), NOW);
    await store.transfers.setCursor(137, SPOKE, 20, hash(20), NOW);
    await other.transfers.setCursor(1, SPOKE.toLowerCase(), 12, hash(12), NOW + 1);
    expect(await store.transfers.cursor(1, SPOKE)).toEqual({ blockNumber: 12, blockHash: hash(12) });
    expect(await store.transfers.cursor(137, SPOKE)).toEqual({ blockNumber: 20, blockHash: hash(20) });
  });

  describe('root bundles', () => {
    const leaf = (leafId: number, addresses: string[]) => ({
      leafId,
      chainId: 1,
      amountToReturn: '0',
      l2TokenAddress: SPOKE,
      refundAddresses: addresses,
      refundAmounts: addresses.map(() => '123456789012345678901234'),
      proof: [hash(1)],
    });

    async function filledAndExpired() {
      const filled = await stored();
      await store.transfers.claim(filled.id, OWNER_A, LEASE_MS, NOW);
      await store.transfers.markFilled(
        filled.id,
        { txHash: hash(90), blockNumber: 5, blockHash: hash(91) },
        NOW,
      );
      const expired = await stored();
      await store.transfers.markExpired(expired.id, NOW);
      return { filled, expired };
    }

    it('plans one open bundle per chain and pays each transfer once', async () => {
      const { filled, expired } = await filledAndExpired();
      expect((await store.transfers.listToSettle(1, 10)).map((t) => t.id).sort()).toEqual(
        [filled.id, expired.id].sort(),
      );
      const plan = {
        chainId: 1,
        spokePool: SPOKE,
        root: hash(100),
        leaves: [leaf(0, [SPOKE]), leaf(1, [SPOKE])],
        assignments: [
          { transferId: filled.id, kind: 'repayment' as const, leafId: 0 },
          { transferId: expired.id, kind: 'refund' as const, leafId: 1 },
        ],
      };
      const [a, b] = await Promise.all([
        store.rootBundles.create(plan, OWNER_A, LEASE_MS, NOW),
        other.rootBundles.create(plan, OWNER_B, LEASE_MS, NOW),
      ]);
      expect([a, b].filter(Boolean)).toHaveLength(1);
      const bundle = (a ?? b)!;
      expect(bundle).toMatchObject({ state: 'planned', root: hash(100), rootBundleId: null, relayTx: null });
      expect(bundle.leaves[0]!.refundAmounts).toEqual(['123456789012345678901234']);
      expect(await store.transfers.listToSettle(1, 10)).toEqual([]);
      expect((await store.rootBundles.findOpen(1))?.id).toBe(bundle.id);
      // The refund is not visible to the api before the bundle is on the SpokePool.
      expect((await store.transfers.findById(expired.id))?.refund).toBeNull();

      // A lease like the transfers': only its owner records transactions.
      const owner = bundle.leaseOwner!;
      const stranger = owner === OWNER_A ? OWNER_B : OWNER_A;
      expect(await store.rootBundles.claim(bundle.id, stranger, LEASE_MS, NOW + 1)).toBe(false);
      const tx = { txHash: hash(101), rawTx: '0x01', nonce: 1, sender: SPOKE };
      expect(await store.rootBundles.recordRelayTx(bundle.id, stranger, tx, NOW)).toBe(false);
      expect(await store.rootBundles.recordRelayTx(bundle.id, owner, tx, NOW)).toBe(true);
      expect(await store.rootBundles.recordRelayTx(bundle.id, owner, tx, NOW)).toBe(false);
      expect(await store.rootBundles.claim(bundle.id, stranger, LEASE_MS, NOW + LEASE_MS + 1)).toBe(true);

      expect(await store.rootBundles.markRelayed(bundle.id, 7, NOW + 2)).toBe(true);
      expect(await store.rootBundles.markRelayed(bundle.id, 8, NOW + 2)).toBe(false);
      expect((await store.transfers.findById(expired.id))?.refund).toEqual({
        rootBundleId: 7,
        leafId: 1,
        txHash: null,
      });
      expect(
        await store.rootBundles.recordLeafTx(bundle.id, stranger, 1, { ...tx, txHash: hash(102) }, NOW + 3),
      ).toBe(true);

      await store.rootBundles.markLeafExecuted(bundle.id, 1, hash(102), NOW + 4);
      await store.rootBundles.markLeafExecuted(bundle.id, 1, hash(102), NOW + 4);
      expect(await store.transfers.findById(expired.id)).toMatchObject({
        status: 'refunded',
        refund: { rootBundleId: 7, leafId: 1, txHash: hash(102) },
      });
      expect((await store.rootBundles.findOpen(1))?.state).toBe('relayed');
      await store.rootBundles.markLeafExecuted(bundle.id, 0, hash(103), NOW + 5);
      expect(await store.transfers.findByDeposit('intent', 1, filled.depositId)).toMatchObject({
        status: 'repaid',
        repayment: { rootBundleId: 7, leafId: 0, txHash: hash(103) },
      });
      expect(await store.rootBundles.findOpen(1)).toBeUndefined();
      expect((await store.rootBundles.findById(bundle.id))?.state).toBe('executed');
    });

    it('writes nothing when a transfer is no longer in the state its leaf assumes', async () => {
      const { filled, expired } = await filledAndExpired();
      const base = { chainId: 1, spokePool: SPOKE, root: hash(200), leaves: [leaf(0, [SPOKE])] };
      // The filled transfer cannot be refunded, nor the expired one repaid.
      expect(
        await store.rootBundles.create(
          {
            ...base,
            assignments: [
              { transferId: expired.id, kind: 'refund', leafId: 0 },
              { transferId: filled.id, kind: 'refund', leafId: 0 },
            ],
          },
          OWNER_A,
          LEASE_MS,
          NOW,
        ),
      ).toBeUndefined();
      expect(await store.rootBundles.findOpen(1)).toBeUndefined();
      expect((await store.transfers.findById(expired.id))?.refundBundleRow).toBeNull();
    });
  });
});
