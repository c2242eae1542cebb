import { setTimeout as sleep } from 'node:timers/promises';
import { Contract, Wallet } from 'ethers';
import { devnetKeys } from '../../devnet/keys';
import { fundsDepositsOf } from '../../shared/bridges/across/relay-data';
import {
  crossChainEntryInterface,
  lockReleaseBridgeInterface,
  rootBundleAdminInterface,
  spokePoolInterface,
} from '../../shared/bridges/contracts';
import { lockedEventsOf } from '../../shared/bridges/lock-release/locked-event';
import { erc20Interface } from '../../shared/chain/contract-interfaces';
import type { Transfer, TransferProvider } from '../../shared/store/repositories/transfers-repository';
import {
  chainTime,
  depositOnSpokePool,
  depositorWallet,
  DESTINATION,
  filledRelayLogs,
  ORIGIN,
  RELAYER,
  sendAndConfirm,
  startRelayE2e,
  tokenBalance,
  type RelaySide,
  type SpokeDeposit,
  afterStageRuns,
} from '../helpers/relay-e2e';
import type { RunningService } from '../helpers/service-harness';
import { waitForReceipt } from '../../devnet/wait-for-receipt';

/**
 * The keeper as relayer and settler of cross-chain transfers on two devnet chains (1 → 137): an intent deposit is
 * filled once from the relayer's inventory and repaid on the origin; two keepers sharing the store fill it once; a
 * deposit left past its fill deadline (the keeper down, the destination's clock moved on) is refunded on the origin;
 * a deposit reorged away before its confirmations is never filled; a fill that reverts is retried, never lost; a
 * lock is released once.
 */

jest.setTimeout(240_000);

const keys = devnetKeys(0);
const USDC_UNITS = 10n ** 6n;

/** CrossChainEntry's fees for `amount` bridged: 0.2% protocol fee, over the entry's 15 bps of the total. */
function entryFees(amount: bigint) {
  return {
    protocolFee: (amount * 2n) / 1000n,
    integratorFee: 0n,
    integratorFeeRecipient: '0x0000000000000000000000000000000000000000',
  };
}

describe('the keeper relays and settles cross-chain transfers', () => {
  let service: RunningService;
  let origin: RelaySide;
  let destination: RelaySide;

  beforeAll(async () => {
    ({ service, origin, destination } = await startRelayE2e({
      env: {
        INTENT_CONFIRMATIONS: '2',
        LOCK_RELEASE_CONFIRMATIONS: '2',
        CROSS_CHAIN_FILL_DEADLINE_SECONDS: '600',
      },
    }));
  });

  afterAll(async () => {
    await service?.close();
  });

  const depositor = () => depositorWallet(origin);
  const store = () => service.api.store;

  /** A USDC → USDC deposit straight on the origin SpokePool, our relayer exclusive for 30 s. */
  const deposit = (a: SpokeDeposit) => depositOnSpokePool(origin, destination, a);

  async function transfer(provider: TransferProvider, depositId: string): Promise<Transfer | undefined> {
    return store().transfers.findByDeposit(provider, ORIGIN, depositId);
  }

  async function waitForStatus(
    provider: TransferProvider,
    depositId: string,
    statuses: readonly string[],
    timeoutMs = 40_000,
    /** Mine an origin block between looks (a lock and its acceptance need blocks on top). */
    mine = false,
  ): Promise<Transfer> {
    const deadline = Date.now() + timeoutMs;
    let last: Transfer | undefined;
    while (Date.now() < deadline) {
      last = await transfer(provider, depositId);
      if (last && statuses.includes(last.status)) return last;
      if (mine) await origin.handle.mine();
      await sleep(mine ? 300 : 200);
    }
    throw new Error(`transfer ${depositId} is ${last?.status ?? 'not stored'}, not ${statuses.join('|')}`);
  }

  /** Until the keeper's fill of an intent deposit is signed, recorded and in the destination's pool. */
  async function waitForSentFill(depositId: string, timeoutMs = 40_000): Promise<Transfer> {
    const deadline = Date.now() + timeoutMs;
    let last: Transfer | undefined;
    while (Date.now() < deadline) {
      last = await transfer('intent', depositId);
      if (last?.status === 'filling' && last.fillTxHash) {
        if (await destination.provider.getTransaction(last.fillTxHash)) return last;
      }
      await sleep(100);
    }
    throw new Error(`transfer ${depositId} is ${last?.status ?? 'not stored'} with no fill in the pool`);
  }

  /** Until the origin has nothing left to settle and no root bundle open. */
  async function settled(timeoutMs = 40_000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (Date.now() < deadline) {
      const open = await store().rootBundles.findOpen(ORIGIN);
      if (!open && !(await store().transfers.listToSettle(ORIGIN, 1)).length) return;
      await sleep(200);
    }
    throw new Error('the origin kept transfers to settle');
  }

  /** FilledRelay events of a deposit on the destination. */
  async function fillsOf(depositId: string): Promise<number> {
    return (await filledRelayLogs(destination, depositId)).length;
  }

  it('fills a deposit once from the relayer inventory and repays the relayer on the origin', async () => {
    const recipient = Wallet.createRandom().address;
    const amount = 250n * USDC_UNITS;
    const relayerOriginBefore = await tokenBalance(origin, origin.token('USDC'), RELAYER);
    const { depositId, receipt } = await deposit({ amount, recipient });

    // The first fill waits for the keeper's pool state (the gas is valued in the output token).
    const filled = await waitForStatus('intent', depositId, ['filled', 'repaid'], 120_000);
    expect(await tokenBalance(destination, destination.token('USDC'), recipient)).toBe((amount * 99n) / 100n);
    expect(await fillsOf(depositId)).toBe(1);
    const fill = await destination.provider.getTransactionReceipt(filled.fillTxHash!);
    expect(fill?.status).toBe(1);
    expect(fill?.from).toBe(RELAYER);
    expect(filled.depositTxHash).toBe(receipt.hash);

    const repaid = await waitForStatus('intent', depositId, ['repaid']);
    expect(repaid.repayment).toMatchObject({ rootBundleId: expect.any(Number), leafId: expect.any(Number) });
    expect(await tokenBalance(origin, origin.token('USDC'), RELAYER)).toBe(relayerOriginBefore + amount);
    const metrics = await service.keepers[0]!.metrics.registry.metrics();
    expect(metrics).toMatch(
      /tas_keeper_relay_fills_total\{chain_id="137",provider="intent",outcome="filled"\} [1-9]/,
    );
    expect(metrics).toMatch(/tas_keeper_relay_settlements_total\{chain_id="1",kind="repayment"\} [1-9]/);
  });

  it('unwraps a native output sent through CrossChainEntry', async () => {
    const wallet = depositor();
    const recipient = Wallet.createRandom().address;
    const total = 10n ** 17n;
    const now = await chainTime(origin);
    // 0.1 ETH for 10 POL (0.5 USD each): far inside the relayer's margin at any devnet price.
    const outputAmount = 10n * 10n ** 18n;
    const data = crossChainEntryInterface().encodeFunctionData('depositIntent', [
      {
        inputToken: origin.token('WETH'),
        inputAmount: total,
        outputToken: destination.chain.tokens.find((t) => t.symbol === 'WPOL')!.address,
        outputAmount,
        destinationChainId: DESTINATION,
        recipient,
        exclusiveRelayer: RELAYER,
        quoteTimestamp: now,
        fillDeadline: now + 600,
        exclusivityParameter: 30,
      },
      entryFees(total),
      now + 300,
    ]);
    const receipt = await sendAndConfirm(wallet, origin.entry, data, total + entryFees(total).protocolFee);
    await origin.handle.mine();
    const [found] = fundsDepositsOf(receipt.logs, origin.spokePool, ORIGIN);
    await waitForStatus('intent', found!.relayData.depositId.toString(), ['filled', 'repaid']);
    expect(await destination.provider.getBalance(recipient)).toBe(outputAmount);
  });

  it('fills each deposit once with two keepers sharing the store', async () => {
    const second = await service.startKeeper({ executorIndexes: [1] });
    try {
      const recipient = Wallet.createRandom().address;
      const amounts = [11n, 12n, 13n, 14n].map((n) => n * USDC_UNITS);
      const ids: string[] = [];
      for (const amount of amounts)
        ids.push((await deposit({ amount, recipient, confirm: false })).depositId);
      await origin.handle.mine();
      for (const id of ids) await waitForStatus('intent', id, ['filled', 'repaid']);
      for (const id of ids) expect(await fillsOf(id)).toBe(1);
      const paid = amounts.reduce((sum, a) => sum + (a * 99n) / 100n, 0n);
      expect(await tokenBalance(destination, destination.token('USDC'), recipient)).toBe(paid);
    } finally {
      await service.stopKeeper(second);
    }
  });

  it('refunds on the origin a deposit left past its fill deadline while the keeper was down', async () => {
    // Everything before is settled: no bundle of the origin is left half way for the next keeper.
    await settled();
    const [keeper] = service.keepers;
    await service.stopKeeper(keeper!);
    const wallet = depositor();
    const usdc = origin.token('USDC');
    const amount = 40n * USDC_UNITS;
    const before = await tokenBalance(origin, usdc, wallet.address);
    const recipient = Wallet.createRandom().address;
    const { depositId } = await deposit({ amount, recipient, fillDeadlineIn: 120 });
    // The destination's clock passes the deadline before any keeper looks.
    await destination.handle.increaseTime(600);
    await destination.handle.mine(2);
    await service.startKeeper();

    const refunded = await waitForStatus('intent', depositId, ['refunded']);
    expect(refunded.refund).toEqual({
      rootBundleId: expect.any(Number),
      leafId: expect.any(Number),
      txHash: expect.stringMatching(/^0x[0-9a-f]{64}$/),
    });
    expect(refunded.fillTxHash).toBeNull();
    expect(await tokenBalance(origin, usdc, wallet.address)).toBe(before);
    expect(await tokenBalance(destination, destination.token('USDC'), recipient)).toBe(0n);
    expect(await fillsOf(depositId)).toBe(0);
    // The refund leaf is on the SpokePool as the api reads it.
    const iface = spokePoolInterface();
    const executed = await origin.provider.getTransactionReceipt(refunded.refund!.txHash!);
    const event = executed!.logs
      .map((log) => iface.parseLog(log))
      .find((parsed) => parsed?.name === 'ExecutedRelayerRefundRoot');
    expect(Number(event!.args.rootBundleId)).toBe(refunded.refund!.rootBundleId);
    expect(Number(event!.args.leafId)).toBe(refunded.refund!.leafId);
  });

  it('never fills a deposit reorged away before its confirmations, and fills the one that takes its id', async () => {
    const recipient = Wallet.createRandom().address;
    // Nothing of the keeper's may be in the reverted blocks.
    await settled();
    const snapshot = await origin.handle.snapshot();
    const { depositId } = await deposit({ amount: 30n * USDC_UNITS, recipient, confirm: false });
    await waitForStatus('intent', depositId, ['deposited']);
    await origin.handle.revert(snapshot);
    await origin.handle.dropPending();
    // Past the deposit's old block by one: the keeper would fill it now, were it still there.
    await origin.handle.mine(3);
    await waitForStatus('intent', depositId, ['reorged']);
    // The fill stage has looked at the destination again since: a fill it would send, it has sent.
    await afterStageRuns(service, destination, 'relay_fill', 3);
    expect(await fillsOf(depositId)).toBe(0);
    expect(await tokenBalance(destination, destination.token('USDC'), recipient)).toBe(0n);

    // The id is reused by the next deposit: its row is read again and filled with the new deposit's data.
    const other = Wallet.createRandom().address;
    const again = await deposit({ amount: 31n * USDC_UNITS, recipient: other });
    expect(again.depositId).toBe(depositId);
    await waitForStatus('intent', depositId, ['filled', 'repaid']);
    expect(await tokenBalance(destination, destination.token('USDC'), other)).toBe(
      (31n * USDC_UNITS * 99n) / 100n,
    );
    expect(await tokenBalance(destination, destination.token('USDC'), recipient)).toBe(0n);
  });

  /** The SpokePool's admin call, sent by the bridges' owner through the RootBundleAdmin that owns the pool. */
  function spokePoolAdminCall(data: string): { to: string; data: string } {
    return {
      to: destination.chain.contracts.rootBundleAdmin!,
      data: rootBundleAdminInterface().encodeFunctionData('adminCall', [data]),
    };
  }

  it('retries a fill that reverts until it goes through, never losing the deposit', async () => {
    const owner = new Wallet(keys.deployer.privateKey, destination.provider);
    const pause = (paused: boolean) => {
      const call = spokePoolAdminCall(spokePoolInterface().encodeFunctionData('pauseFills', [paused]));
      return sendAndConfirm(owner, call.to, call.data);
    };
    await pause(true);
    const recipient = Wallet.createRandom().address;
    let depositId: string;
    try {
      ({ depositId } = await deposit({ amount: 20n * USDC_UNITS, recipient }));
      const deadline = Date.now() + 30_000;
      let row = await transfer('intent', depositId);
      while (Date.now() < deadline && (row?.attempts ?? 0) < 1) {
        await sleep(200);
        row = await transfer('intent', depositId);
      }
      expect(row).toMatchObject({ status: 'deposited', fillTxHash: null });
      expect(row!.attempts).toBeGreaterThanOrEqual(1);
      expect(row!.lastError).toMatch(/revert|paused/i);
    } finally {
      await pause(false);
    }
    const filled = await waitForStatus('intent', depositId, ['filled', 'repaid'], 60_000);
    expect(filled.attempts).toBeGreaterThanOrEqual(1);
    expect(await fillsOf(depositId)).toBe(1);
    expect(await tokenBalance(destination, destination.token('USDC'), recipient)).toBe(
      (20n * USDC_UNITS * 99n) / 100n,
    );
  });

  it('retries a fill whose transaction reverts on-chain', async () => {
    const owner = new Wallet(keys.deployer.privateKey, destination.provider);
    const spoke = spokePoolInterface();
    const recipient = Wallet.createRandom().address;
    await destination.handle.pauseMining();
    let depositId: string;
    try {
      ({ depositId } = await deposit({ amount: 21n * USDC_UNITS, recipient }));
      // The keeper's fill waits in the destination's pool...
      // (claimed as 'filling' first, the hash recorded when signed, then broadcast: wait for all three)
      const sent = await waitForSentFill(depositId);
      expect(sent.fillTxHash).toMatch(/^0x[0-9a-f]{64}$/);
      // ...and fills are paused ahead of it in the same block (a higher tip goes first).
      await owner.sendTransaction({
        ...spokePoolAdminCall(spoke.encodeFunctionData('pauseFills', [true])),
        gasLimit: 200_000n,
        maxPriorityFeePerGas: 500n * 10n ** 9n,
        maxFeePerGas: 1_000n * 10n ** 9n,
      });
      await destination.handle.resumeMining();
      const reverted = await waitForReceipt(destination.provider, sent.fillTxHash!, 20_000);
      expect(reverted.status).toBe(0);
      const deadline = Date.now() + 20_000;
      let row = await transfer('intent', depositId);
      while (Date.now() < deadline && row?.lastError?.includes(sent.fillTxHash!) !== true) {
        await sleep(200);
        row = await transfer('intent', depositId);
      }
      expect(row).toMatchObject({ status: 'deposited', fillTxHash: null });
      expect(row!.lastError).toBe(`fill ${sent.fillTxHash} reverted`);
      expect(row!.attempts).toBeGreaterThanOrEqual(1);
    } finally {
      await destination.handle.resumeMining();
      const unpause = spokePoolAdminCall(spoke.encodeFunctionData('pauseFills', [false]));
      await sendAndConfirm(owner, unpause.to, unpause.data);
    }
    await waitForStatus('intent', depositId, ['filled', 'repaid'], 60_000);
    expect(await fillsOf(depositId)).toBe(1);
    expect(await tokenBalance(destination, destination.token('USDC'), recipient)).toBe(
      (21n * USDC_UNITS * 99n) / 100n,
    );
    const metrics = await service.keepers[0]!.metrics.registry.metrics();
    expect(metrics).toMatch(
      /tas_keeper_relay_fills_total\{chain_id="137",provider="intent",outcome="reverted"\} [1-9]/,
    );
  });

  it('releases a lock made through CrossChainEntry once on the destination, after accepting it on the origin', async () => {
    const wallet = depositor();
    const usdc = origin.token('USDC');
    const amount = 75n * USDC_UNITS;
    const fees = entryFees(amount);
    const recipient = Wallet.createRandom().address;
    await sendAndConfirm(
      wallet,
      usdc,
      erc20Interface().encodeFunctionData('approve', [origin.entry, amount + fees.protocolFee]),
    );
    const receipt = await sendAndConfirm(
      wallet,
      origin.entry,
      crossChainEntryInterface().encodeFunctionData('lock', [
        {
          inputToken: usdc,
          inputAmount: amount,
          outputToken: destination.token('USDC'),
          // Less the bridge's 2 bps (LOCK_RELEASE_FEE_BPS), rounded up: a lock asking more is never released.
          outputAmount: amount - (amount * 2n + 9_999n) / 10_000n,
          destinationChainId: DESTINATION,
          recipient,
        },
        fees,
        (await chainTime(origin)) + 300,
      ]),
    );
    const [locked] = lockedEventsOf(receipt.logs, origin.bridge);
    expect(locked!.feesPaid).toBe(true);
    const nonce = locked!.nonce.toString();
    // LOCK_RELEASE_CONFIRMATIONS = 2: the lock, then its acceptance, each need a block on top.
    const released = await waitForStatus('lock-release', nonce, ['released'], 40_000, true);
    expect(await tokenBalance(destination, destination.token('USDC'), recipient)).toBe(
      amount - (amount * 2n + 9_999n) / 10_000n,
    );
    const originBridge = new Contract(origin.bridge, lockReleaseBridgeInterface(), origin.provider);
    expect(Number((await originBridge.locks(nonce)).state)).toBe(2);
    const bridge = new Contract(destination.bridge, lockReleaseBridgeInterface(), destination.provider);
    expect(await bridge.released(ORIGIN, origin.bridge, nonce)).toBe(true);
    const logs = await destination.provider.getLogs({
      address: destination.bridge,
      topics: [lockReleaseBridgeInterface().getEvent('Released')!.topicHash],
      fromBlock: 0,
    });
    const ofThis = logs.filter((l) => BigInt(l.topics[3]!) === BigInt(nonce) && BigInt(l.topics[1]!) === 1n);
    expect(ofThis).toHaveLength(1);
    expect(ofThis[0]!.transactionHash).toBe(released.fillTxHash);
  });
  it('rebalances the relayer inventory through the lock-and-release bridge when a chain runs low', async () => {
    await settled();
    const usdc = destination.token('USDC');
    const scale = 10n ** 12n;
    const held = await tokenBalance(destination, usdc, RELAYER);
    const originHeld = await tokenBalance(origin, origin.token('USDC'), RELAYER);
    // The destination keeps a tenth: far under half the two chains' average.
    const low = held / 10n;
    const relayer = new Wallet(keys.relayer.privateKey, destination.provider);
    const sink = Wallet.createRandom().address;
    await sendAndConfirm(relayer, usdc, erc20Interface().encodeFunctionData('transfer', [sink, held - low]));
    // Enough to bring the destination to the average without taking the origin below it (18-decimal common units).
    const average = ((originHeld + low) * scale) / 2n;
    const spare = originHeld * scale - average;
    const missing = average - low * scale;
    // ...and within what the destination bridge releases at once this hour (more would wait the bridge's delay).
    const limit = (await new Contract(
      destination.bridge,
      lockReleaseBridgeInterface(),
      destination.provider,
    ).releasableNow(usdc)) as bigint;
    const fits = spare < missing ? spare / scale : missing / scale;
    const expected = fits < limit ? fits : limit;

    const rebalances = async (): Promise<Transfer[]> =>
      (
        await Promise.all(
          (
            (await store()
              .knex('cross_chain_transfers')
              .where({ provider: 'lock-release' })
              .andWhereRaw('lower(depositor) = ?', [RELAYER.toLowerCase()])
              .select('deposit_id')) as { deposit_id: string }[]
          ).map((r) => transfer('lock-release', r.deposit_id)),
        )
      ).filter((t): t is Transfer => t !== undefined);
    const deadline = Date.now() + 60_000;
    let rows: Transfer[] = [];
    while (Date.now() < deadline) {
      rows = await rebalances();
      if (rows.length && rows.every((t) => t.status === 'released')) break;
      // LOCK_RELEASE_CONFIRMATIONS = 2: the lock needs a block on top.
      await origin.handle.mine();
      await sleep(500);
    }
    expect(rows.map((t) => [t.status, t.destinationChainId, t.recipient])).toEqual([
      ['released', DESTINATION, RELAYER],
    ]);
    const [lock] = rows;
    expect(lock!.outputAmount).toBe(lock!.inputAmount);
    // The origin's reading may predate its last repayment by a few USDC.
    const off = lock!.inputAmount > expected ? lock!.inputAmount - expected : expected - lock!.inputAmount;
    expect(off * 100n).toBeLessThan(expected);
    expect(await tokenBalance(destination, usdc, RELAYER)).toBe(low + lock!.outputAmount);
    expect(await tokenBalance(origin, origin.token('USDC'), RELAYER)).toBe(originHeld - lock!.inputAmount);
    const metrics = await service.keepers[0]!.metrics.registry.metrics();
    expect(metrics).toMatch(/tas_keeper_relay_rebalances_total\{chain_id="1"\} 1/);
    expect(metrics).toMatch(
      /tas_keeper_relayer_inventory\{chain_id="137",token="USDC",wallet="0x[0-9a-fA-F]{40}"\} \d/,
    );
  });
});
