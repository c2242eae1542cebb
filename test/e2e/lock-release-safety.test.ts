import { setTimeout as sleep } from 'node:timers/promises';
import { Contract, Wallet } from 'ethers';
import { devnetKeys } from '../../devnet/keys';
import { DEVNET_LOCK_TIMEOUT_SECONDS, DEVNET_RELEASE_DELAY_SECONDS } from '../../devnet/world/deploy-bridges';
import { crossChainEntryInterface, lockReleaseBridgeInterface } from '../../shared/bridges/contracts';
import { crossChainDexHash } from '../../shared/bridges/dex-hash';
import { LOCK_RELEASE_PROVIDER_ID } from '../../shared/bridges/lock-release/lock-release-deps';
import { lockedEventsOf } from '../../shared/bridges/lock-release/locked-event';
import { erc20Interface } from '../../shared/chain/contract-interfaces';
import type { Transfer } from '../../shared/store/repositories/transfers-repository';
import {
  depositorWallet,
  DESTINATION,
  ORIGIN,
  sendAndConfirm,
  startRelayE2e,
  tokenBalance,
  type RelaySide,
  afterStageRuns,
} from '../helpers/relay-e2e';
import type { RunningService } from '../helpers/service-harness';

/**
 * The lock-and-release bridge as an attacker and an unlucky user meet it, through the keeper on two devnet chains
 * (1 → 137): a lock made straight on the bridge paid no fees and is refunded, never released; a lock asking more
 * than it locked is refunded; a release past the bridge's hourly limit waits its delay, then pays; with the
 * releaser's key rotated away the keeper can release nothing, and the lock ends refunded after its deadline.
 */

jest.setTimeout(240_000);

const keys = devnetKeys(0);
const USDC = 10n ** 6n;
const ZERO = '0x0000000000000000000000000000000000000000';
/** What a lock of `amount` may ask on the other side: less the bridge's 2 bps (LOCK_RELEASE_FEE_BPS), rounded up. */
const afterBridgeFee = (amount: bigint): bigint => amount - (amount * 2n + 9_999n) / 10_000n;

interface Side extends RelaySide {
  /** The chain's USDC. */
  usdc: string;
}

const withUsdc = (s: RelaySide): Side => ({ ...s, usdc: s.token('USDC') });

describe('the lock-and-release bridge refunds what it will not release and bounds its keys', () => {
  let service: RunningService;
  let origin: Side;
  let destination: Side;

  beforeAll(async () => {
    const e2e = await startRelayE2e({ env: { LOCK_RELEASE_CONFIRMATIONS: '2' } });
    service = e2e.service;
    origin = withUsdc(e2e.origin);
    destination = withUsdc(e2e.destination);
  });

  afterAll(async () => {
    await service?.close();
  });

  const depositor = () => depositorWallet(origin, 1);
  const owner = (s: Side) => new Wallet(keys.deployer.privateKey, s.provider);

  const balance = (s: Side, owner: string): Promise<bigint> => tokenBalance(s, s.usdc, owner);

  const bridge = (s: Side, wallet?: Wallet) =>
    new Contract(s.bridge, lockReleaseBridgeInterface(), wallet ?? s.provider);

  /** A USDC → USDC lock through CrossChainEntry with 0.2% protocol fee; resolves the nonce and the receipt. */
  async function lockThroughEntry(amount: bigint, outputAmount: bigint, recipient: string) {
    const wallet = depositor();
    const fee = (amount * 2n) / 1000n;
    await sendAndConfirm(
      wallet,
      origin.usdc,
      erc20Interface().encodeFunctionData('approve', [origin.entry, amount + fee]),
    );
    const now = (await origin.provider.getBlock('latest'))!.timestamp;
    const receipt = await sendAndConfirm(
      wallet,
      origin.entry,
      crossChainEntryInterface().encodeFunctionData('lock', [
        {
          inputToken: origin.usdc,
          inputAmount: amount,
          outputToken: destination.usdc,
          outputAmount,
          destinationChainId: DESTINATION,
          recipient,
        },
        { protocolFee: fee, integratorFee: 0n, integratorFeeRecipient: ZERO },
        now + 300,
      ]),
    );
    const [locked] = lockedEventsOf(receipt.logs, origin.bridge);
    expect(locked!.feesPaid).toBe(true);
    return { nonce: locked!.nonce.toString(), receipt };
  }

  async function transfer(nonce: string): Promise<Transfer | undefined> {
    return service.api.store.transfers.findByDeposit('lock-release', ORIGIN, nonce, origin.bridge);
  }

  /** Mines an origin block now and then (the lock and its acceptance need a block on top) until a status. */
  async function until(nonce: string, statuses: readonly string[], timeoutMs = 60_000): Promise<Transfer> {
    const deadline = Date.now() + timeoutMs;
    let last: Transfer | undefined;
    while (Date.now() < deadline) {
      last = await transfer(nonce);
      if (last && statuses.includes(last.status)) return last;
      await origin.handle.mine();
      await sleep(300);
    }
    throw new Error(`lock ${nonce} is ${last?.status ?? 'not stored'} (${last?.lastError}), not ${statuses}`);
  }

  /** Mines an origin block now and then until the keeper has judged the lock and says why it waits. */
  async function judged(nonce: string, reason: RegExp, timeoutMs = 30_000): Promise<Transfer> {
    const deadline = Date.now() + timeoutMs;
    let last: Transfer | undefined;
    while (Date.now() < deadline) {
      last = await transfer(nonce);
      if (last?.lastError && reason.test(last.lastError)) return last;
      await origin.handle.mine();
      await sleep(300);
    }
    throw new Error(
      `lock ${nonce} is ${last?.status ?? 'not stored'} (${last?.lastError}), not judged ${reason}`,
    );
  }

  /** Until the keeper has run its release stage on the destination `runs` more times: what it would do, it did. */
  const afterReleaseRuns = (runs: number, timeoutMs?: number): Promise<void> =>
    afterStageRuns(service, destination, 'relay_release', runs, timeoutMs);

  async function txStatus(hash: string): Promise<{ status: string; detailStatus?: string }> {
    const res = await service.client.post<{ status: string; detailStatus?: string }>('/tx-status', {
      hash,
      chainId: ORIGIN,
      dexHash: crossChainDexHash(LOCK_RELEASE_PROVIDER_ID),
    });
    expect(res.status).toBe(200);
    return res.body.data!;
  }

  it('never releases a lock made straight on the bridge (no fees paid): it is refunded to its depositor', async () => {
    const wallet = depositor();
    const amount = 40n * USDC;
    const recipient = Wallet.createRandom().address;
    const before = await balance(origin, wallet.address);
    await sendAndConfirm(
      wallet,
      origin.usdc,
      erc20Interface().encodeFunctionData('approve', [origin.bridge, amount]),
    );
    const receipt = await sendAndConfirm(
      wallet,
      origin.bridge,
      lockReleaseBridgeInterface().encodeFunctionData('lock', [
        wallet.address,
        origin.usdc,
        amount,
        destination.usdc,
        amount,
        DESTINATION,
        recipient,
      ]),
    );
    const [locked] = lockedEventsOf(receipt.logs, origin.bridge);
    expect(locked!.feesPaid).toBe(false);
    const nonce = locked!.nonce.toString();
    // Never accepted: it waits for its deadline, then the keeper refunds it (as anyone may).
    expect(await judged(nonce, /no fees/)).toMatchObject({ status: 'locked' });
    expect(Number((await bridge(origin).locks(nonce)).state)).toBe(1);
    await origin.handle.increaseTime(DEVNET_LOCK_TIMEOUT_SECONDS + 1);
    const refunded = await until(nonce, ['refunded', 'released']);
    expect(refunded.status).toBe('refunded');
    expect(await balance(origin, wallet.address)).toBe(before);
    expect(await balance(destination, recipient)).toBe(0n);
    expect(Number((await bridge(origin).locks(nonce)).state)).toBe(3);
    expect(await bridge(destination).released(ORIGIN, origin.bridge, nonce)).toBe(false);
    expect(await txStatus(receipt.hash)).toMatchObject({ status: 'REFUND', detailStatus: 'REFUND' });
  });

  it('refunds a lock through CrossChainEntry that asks for more than it locked', async () => {
    const wallet = depositor();
    const recipient = Wallet.createRandom().address;
    const before = await balance(origin, wallet.address);
    const { nonce } = await lockThroughEntry(30n * USDC, 31n * USDC, recipient);
    // Never accepted; refunded once its deadline has passed.
    expect(await judged(nonce, /exceeds/)).toMatchObject({ status: 'locked' });
    expect(Number((await bridge(origin).locks(nonce)).state)).toBe(1);
    await origin.handle.increaseTime(DEVNET_LOCK_TIMEOUT_SECONDS + 1);
    const row = await until(nonce, ['refunded', 'released']);
    expect(row.status).toBe('refunded');
    // The lock comes back whole; the protocol fee it paid for the service's work does not.
    expect(await balance(origin, wallet.address)).toBe(before - (30n * USDC * 2n) / 1000n);
    expect(await balance(destination, recipient)).toBe(0n);
  });

  it('holds a release past the hourly limit for the delay, then pays it', async () => {
    const limit = (await bridge(destination).releaseLimit(destination.usdc)) as bigint;
    await sendAndConfirm(
      owner(destination),
      destination.bridge,
      lockReleaseBridgeInterface().encodeFunctionData('setReleaseLimit', [destination.usdc, 10n * USDC]),
    );
    try {
      const recipient = Wallet.createRandom().address;
      const amount = 50n * USDC;
      const { nonce, receipt } = await lockThroughEntry(amount, afterBridgeFee(amount), recipient);
      const queued = await until(nonce, ['release_queued', 'released']);
      expect(queued.status).toBe('release_queued');
      expect(await balance(destination, recipient)).toBe(0n);
      expect(await txStatus(receipt.hash)).toMatchObject({
        status: 'PENDING',
        detailStatus: 'RELEASE_DELAYED',
      });
      // Not before the delay: after the keeper has looked at it again, it still waits.
      await afterReleaseRuns(3);
      expect((await transfer(nonce))!.status).toBe('release_queued');
      expect(await balance(destination, recipient)).toBe(0n);
      await destination.handle.increaseTime(DEVNET_RELEASE_DELAY_SECONDS + 1);
      await destination.handle.mine();
      const deadline = Date.now() + 30_000;
      while (Date.now() < deadline && (await transfer(nonce))!.status !== 'released') {
        await destination.handle.mine();
        await sleep(300);
      }
      expect((await transfer(nonce))!.status).toBe('released');
      expect(await balance(destination, recipient)).toBe(afterBridgeFee(amount));
      expect(await txStatus(receipt.hash)).toMatchObject({ status: 'SUCCESS' });
    } finally {
      await sendAndConfirm(
        owner(destination),
        destination.bridge,
        lockReleaseBridgeInterface().encodeFunctionData('setReleaseLimit', [destination.usdc, limit]),
      );
    }
  });

  it("never accepts locks past the destination bridge's liquidity: the one that does not fit waits, then goes", async () => {
    // The destination bridge keeps 100 USDC free: its owner-side liquidity moved aside for the test.
    const reserve = new Wallet(keys.deployer.privateKey, destination.provider);
    const free = await balance(destination, destination.bridge);
    const aside = free - 100n * USDC;
    await destination.handle.setBalance(destination.bridge, 10n ** 18n);
    await destination.handle.impersonate(destination.bridge);
    const moveAside = await destination.provider.send('eth_sendTransaction', [
      {
        from: destination.bridge,
        to: destination.usdc,
        data: erc20Interface().encodeFunctionData('transfer', [reserve.address, aside]),
      },
    ]);
    // Mined by hand as well: under load the devnet's interval block can come late, and this wait is the test's own.
    const movedBy = Date.now() + 60_000;
    while (!(await destination.provider.getTransactionReceipt(moveAside as string))) {
      if (Date.now() > movedBy)
        throw new Error(`moving the liquidity aside (${String(moveAside)}) was never mined`);
      await destination.handle.mine();
      await sleep(300);
    }
    await destination.handle.stopImpersonating(destination.bridge);
    const second = Wallet.createRandom().address;
    let waiting = '';
    try {
      const first = Wallet.createRandom().address;
      const a = await lockThroughEntry(60n * USDC, afterBridgeFee(60n * USDC), first);
      const b = await lockThroughEntry(60n * USDC, afterBridgeFee(60n * USDC), second);
      waiting = b.nonce;
      await until(a.nonce, ['released']);
      expect(await balance(destination, first)).toBe(afterBridgeFee(60n * USDC));
      // The second does not fit what is left: not accepted (still refundable), waiting for liquidity.
      expect(await judged(b.nonce, /^bridge liquidity too low$/)).toMatchObject({ status: 'locked' });
      expect(Number((await bridge(origin).locks(b.nonce)).state)).toBe(1);
      expect(await balance(destination, second)).toBe(0n);
    } finally {
      await sendAndConfirm(
        reserve,
        destination.usdc,
        erc20Interface().encodeFunctionData('transfer', [destination.bridge, aside]),
      );
    }
    // Liquidity back: the second is accepted and released in turn.
    await until(waiting, ['released']);
    expect(await balance(destination, second)).toBe(afterBridgeFee(60n * USDC));
  });

  it('never pays a lock accepted by a stolen releaser key that the keeper would not have accepted', async () => {
    const thief = new Wallet(origin.chain.accounts[2]!.privateKey, origin.provider);
    const stolenKey = new Wallet(keys.bridgeAdmin.privateKey, origin.provider);
    const recipient = thief.address;
    const before = await balance(destination, recipient);
    // 1 USDC locked straight on the bridge, asking 5,000 USDC, accepted at once with the stolen key.
    await sendAndConfirm(
      thief,
      origin.usdc,
      erc20Interface().encodeFunctionData('approve', [origin.bridge, USDC]),
    );
    const receipt = await sendAndConfirm(
      thief,
      origin.bridge,
      lockReleaseBridgeInterface().encodeFunctionData('lock', [
        thief.address,
        origin.usdc,
        USDC,
        destination.usdc,
        5_000n * USDC,
        DESTINATION,
        recipient,
      ]),
    );
    const nonce = lockedEventsOf(receipt.logs, origin.bridge)[0]!.nonce.toString();
    await sendAndConfirm(
      stolenKey,
      origin.bridge,
      lockReleaseBridgeInterface().encodeFunctionData('accept', [nonce]),
    );
    const row = await until(nonce, ['refused', 'released', 'releasing', 'release_queued']);
    expect(row).toMatchObject({
      status: 'refused',
      lastError: expect.stringMatching(/^accepted on its origin, but/),
    });
    // Refused for good: the keeper's later looks at the destination pay nothing either.
    await afterReleaseRuns(3);
    expect(await balance(destination, recipient)).toBe(before);
    expect(await bridge(destination).released(ORIGIN, origin.bridge, nonce)).toBe(false);
    const metrics = await service.keepers[0]!.metrics.registry.metrics();
    expect(metrics).toMatch(
      /tas_keeper_relay_fills_total\{chain_id="137",provider="lock-release",outcome="rejected_accepted"\} 1/,
    );
  });

  it('refunds a lock whose message a stolen key released beforehand with other terms', async () => {
    const stolenKey = new Wallet(keys.bridgeAdmin.privateKey, destination.provider);
    const thief = Wallet.createRandom().address;
    const next = (await bridge(origin).lockCount()) as bigint;
    // The next lock's message, burned ahead with 1 unit to the thief.
    await sendAndConfirm(
      stolenKey,
      destination.bridge,
      lockReleaseBridgeInterface().encodeFunctionData('release', [
        ORIGIN,
        origin.bridge,
        next,
        destination.usdc,
        1n,
        thief,
      ]),
    );
    const wallet = depositor();
    const before = await balance(origin, wallet.address);
    const recipient = Wallet.createRandom().address;
    const amount = 25n * USDC;
    const { nonce } = await lockThroughEntry(amount, afterBridgeFee(amount), recipient);
    expect(BigInt(nonce)).toBe(next);
    const row = await until(nonce, ['refunded', 'released', 'refused']);
    expect(row.status).toBe('refunded');
    expect(await balance(origin, wallet.address)).toBe(before - (amount * 2n) / 1000n);
    expect(await balance(destination, recipient)).toBe(0n);
    expect(await balance(destination, thief)).toBe(1n);
  });

  it('with the releaser rotated away, the old key releases nothing and the lock is refunded after its deadline', async () => {
    const rotated = Wallet.createRandom().address;
    const admin = keys.bridgeAdmin.address;
    for (const s of [origin, destination])
      await sendAndConfirm(
        owner(s),
        s.bridge,
        lockReleaseBridgeInterface().encodeFunctionData('setReleaser', [rotated]),
      );
    try {
      const wallet = depositor();
      const recipient = Wallet.createRandom().address;
      const before = await balance(origin, wallet.address);
      const amount = 20n * USDC;
      const { nonce } = await lockThroughEntry(amount, afterBridgeFee(amount), recipient);
      // The keeper still holds the old key: its acceptance reverts, nothing is released.
      expect(await judged(nonce, /^accept not sent/)).toMatchObject({ status: 'locked' });
      expect(Number((await bridge(origin).locks(nonce)).state)).toBe(1);
      const oldKey = new Wallet(keys.bridgeAdmin.privateKey, destination.provider);
      await expect(
        bridge(destination, oldKey).release.staticCall(
          ORIGIN,
          origin.bridge,
          nonce,
          destination.usdc,
          amount,
          admin,
        ),
      ).rejects.toMatchObject({ data: lockReleaseBridgeInterface().getError('NotReleaser')!.selector });
      // Past the lock's deadline anyone may refund it, the keeper included.
      await origin.handle.increaseTime(DEVNET_LOCK_TIMEOUT_SECONDS + 1);
      const row = await until(nonce, ['refunded', 'released']);
      expect(row.status).toBe('refunded');
      expect(await balance(origin, wallet.address)).toBe(before - (amount * 2n) / 1000n);
      expect(await balance(destination, recipient)).toBe(0n);
    } finally {
      for (const s of [origin, destination])
        await sendAndConfirm(
          owner(s),
          s.bridge,
          lockReleaseBridgeInterface().encodeFunctionData('setReleaser', [admin]),
        );
    }
  });
});
