import { setTimeout as sleep } from 'node:timers/promises';
import { toQuantity, Transaction, Wallet, type TransactionReceipt } from 'ethers';
import type { KeeperInstance } from '../../keeper/build-keeper';
import { spokePoolInterface } from '../../shared/bridges/contracts';
import type { Transfer } from '../../shared/store/repositories/transfers-repository';
import { startRecordingRelay, type RecordingRelay, type RelayedSend } from '../helpers/recording-relay';
import {
  depositOnSpokePool,
  DESTINATION,
  filledRelayLogs,
  ORIGIN,
  postIntentTxStatus,
  RELAYER,
  startRelayE2e,
  tokenBalance,
  type RelaySide,
} from '../helpers/relay-e2e';
import type { RunningService } from '../helpers/service-harness';

/**
 * Issue 23: a relay fill stuck unmined is re-signed at its nonce with fees at least 12.5% higher after
 * KEEPER_REPLACE_AFTER_BLOCKS destination blocks (every hash recorded on the transfer first), and whichever copy
 * is mined completes the transfer, once. Two devnet chains (1 → 137) with the keeper as relayer, as in
 * keeper-relayer.test.ts. The fill is kept from the chain in two ways: a private relay (KEEPER_PRIVATE_RPC_URLS)
 * that holds every transaction until told otherwise, and, publicly, destination blocks whose base fee is above
 * the first fill's max fee.
 */

jest.setTimeout(240_000);

const REPLACE_AFTER_BLOCKS = 2;
const USDC_UNITS = 10n ** 6n;
const DONE = ['filled', 'repaid'];

/** A fill of the relayer the relay took, decoded. */
interface RelayedFill {
  send: RelayedSend;
  tx: Transaction;
}

/** Resolves whether `predicate` held within `timeoutMs`, looking every `everyMs`. */
async function until(predicate: () => boolean | Promise<boolean>, timeoutMs: number, everyMs = 50) {
  for (const deadline = Date.now() + timeoutMs; ;) {
    if (await predicate()) return true;
    if (Date.now() > deadline) return false;
    await sleep(everyMs);
  }
}

/** EIP-1559 prices of a signed transaction (decoded, or as the node gives it). */
interface Fees {
  maxFeePerGas: bigint | null;
  maxPriorityFeePerGas: bigint | null;
}

/** Whether `later` offers at least 12.5% more than `earlier` on both EIP-1559 prices. */
function bumpedOver(earlier: Fees, later: Fees): boolean {
  return (
    later.maxFeePerGas! * 1000n >= earlier.maxFeePerGas! * 1125n &&
    later.maxPriorityFeePerGas! * 1000n >= earlier.maxPriorityFeePerGas! * 1125n
  );
}

describe('a stuck relay fill is replaced with higher fees', () => {
  let service: RunningService;
  let origin: RelaySide;
  let destination: RelaySide;
  const keepers: KeeperInstance[] = [];
  const relays: RecordingRelay[] = [];

  beforeAll(async () => {
    // Each case starts its own keeper: a private one needs its relay, which needs the destination's URL.
    ({ service, origin, destination } = await startRelayE2e({
      keepers: 0,
      env: {
        INTENT_CONFIRMATIONS: '2',
        LOCK_RELEASE_CONFIRMATIONS: '2',
        CROSS_CHAIN_FILL_DEADLINE_SECONDS: '600',
        KEEPER_REPLACE_AFTER_BLOCKS: String(REPLACE_AFTER_BLOCKS),
      },
    }));
  }, 240_000);

  afterEach(async () => {
    for (const keeper of keepers.splice(0)) await service.stopKeeper(keeper);
    // Whatever a relay still holds goes to the chain (copies of a mined fill are refused): nothing of the
    // relay's wallets is left out of the next case's sight.
    for (const relay of relays.splice(0)) {
      await relay.release();
      await relay.close();
    }
  });

  afterAll(async () => {
    await service?.close();
  });

  async function startKeeper(env: Record<string, string> = {}): Promise<void> {
    keepers.push(await service.startKeeper({ executorIndexes: [0], env }));
  }

  /** A keeper whose destination transactions go only to a relay that holds them until `release()`. */
  async function privateKeeper(): Promise<RecordingRelay> {
    const relay = await startRecordingRelay({ targetUrl: destination.handle.rpcUrl, hold: true });
    relays.push(relay);
    await startKeeper({ KEEPER_PRIVATE_RPC_URLS: `${DESTINATION}=${relay.url}` });
    return relay;
  }

  const store = () => service.api.store;

  /**
   * A USDC → USDC deposit straight on the origin SpokePool, our relayer exclusive for 30 s, confirmed (the keeper
   * waits for INTENT_CONFIRMATIONS = 2 origin blocks).
   */
  const deposit = (amount: bigint, recipient: string) =>
    depositOnSpokePool(origin, destination, { amount, recipient });

  async function transfer(depositId: string): Promise<Transfer | undefined> {
    return store().transfers.findByDeposit('intent', ORIGIN, depositId);
  }

  async function waitForStatus(depositId: string, statuses: readonly string[], timeoutMs = 40_000) {
    let last: Transfer | undefined;
    const reached = await until(
      async () => {
        last = await transfer(depositId);
        return last !== undefined && statuses.includes(last.status);
      },
      timeoutMs,
      200,
    );
    if (!reached) {
      throw new Error(
        `transfer ${depositId} is ${last?.status ?? 'not stored'} (lastError ${last?.lastError ?? 'none'}), not ${statuses.join('|')}`,
      );
    }
    return last!;
  }

  /** Every fill of the deposit the relay took, in arrival order (re-broadcasts included). */
  function fillsIn(relay: RecordingRelay, depositId: string): RelayedFill[] {
    const fills: RelayedFill[] = [];
    for (const send of relay.sends()) {
      const tx = Transaction.from(send.raw);
      if (tx.from?.toLowerCase() !== RELAYER.toLowerCase()) continue;
      if (tx.to?.toLowerCase() !== destination.spokePool.toLowerCase()) continue;
      const call = spokePoolInterface().parseTransaction({ data: tx.data });
      if (call?.name !== 'fillRelay') continue;
      if ((call.args[0] as { depositId: bigint }).depositId.toString() !== depositId) continue;
      fills.push({ send, tx });
    }
    return fills;
  }

  /** Each distinct signed fill once, in the order the relay first saw it. */
  function distinct(fills: readonly RelayedFill[]): RelayedFill[] {
    const seen = new Set<string>();
    return fills.filter((f) => !seen.has(f.send.hash) && seen.add(f.send.hash));
  }

  /** The first later fill of the same nonce that outbids an earlier one by 12.5%, with that earlier one. */
  function replacementIn(fills: readonly RelayedFill[]): [RelayedFill, RelayedFill] | undefined {
    const signed = distinct(fills);
    for (let j = 1; j < signed.length; j++) {
      for (let i = 0; i < j; i++) {
        const [a, b] = [signed[i]!, signed[j]!];
        if (a.tx.nonce === b.tx.nonce && bumpedOver(a.tx, b.tx)) return [a, b];
      }
    }
    return undefined;
  }

  /**
   * What the relayer signed at `nonce` besides the deposit's fills, as the relay took it: nothing should be (an
   * empty transaction there, a nonce-gap filler's, competes with the held fill: whichever the relay's builder takes
   * is mined, and a filler mined first drops the fill).
   */
  function othersAtNonce(relay: RecordingRelay, depositId: string, nonce: number): string[] {
    const fills = new Set(fillsIn(relay, depositId).map((f) => f.send.hash));
    const lines = relay
      .sends()
      .map((s) => ({ send: s, tx: Transaction.from(s.raw) }))
      .filter(
        ({ send, tx }) =>
          tx.from?.toLowerCase() === RELAYER.toLowerCase() && tx.nonce === nonce && !fills.has(send.hash),
      )
      .map(
        ({ send, tx }) =>
          `${send.hash} to ${tx.to} data ${tx.data.slice(0, 10)} maxFee ${tx.maxFeePerGas} tip ${tx.maxPriorityFeePerGas}`,
      );
    return [...new Set(lines)];
  }

  /** Fails, with the relay's timeline, when the relayer signed anything but the deposit's fills at `nonce`. */
  async function expectNothingElseAt(relay: RecordingRelay, depositId: string, nonce: number): Promise<void> {
    const others = othersAtNonce(relay, depositId, nonce);
    if (others.length === 0) return;
    const metrics = await keepers[0]!.metrics.registry.metrics();
    const gaps = metrics.split('\n').filter((line) => line.startsWith('tas_keeper_nonce_gaps_filled_total'));
    throw new Error(
      `the relayer signed other transactions at its fill's nonce ${nonce}:\n${others.join('\n')}\n` +
        `the keeper's ${gaps.join(', ') || 'tas_keeper_nonce_gaps_filled_total: none'}\n` +
        `the relay took, in order (repeats folded):\n${timeline(relay)}`,
    );
  }

  /** The relay's sends in arrival order, consecutive copies folded, times from the first. */
  function timeline(relay: RecordingRelay): string {
    const sends = relay.sends();
    const start = sends[0]?.receivedAt ?? 0;
    const lines: string[] = [];
    let last: string | undefined;
    let repeats = 0;
    for (const s of sends) {
      if (s.hash === last) {
        repeats += 1;
        continue;
      }
      if (repeats) lines.push(`  … ${repeats} more cop${repeats === 1 ? 'y' : 'ies'}`);
      repeats = 0;
      last = s.hash;
      const tx = Transaction.from(s.raw);
      lines.push(
        `+${s.receivedAt - start} ms ${s.hash} from ${tx.from} nonce ${tx.nonce} to ${tx.to} ` +
          `data ${tx.data.slice(0, 10)} maxFee ${tx.maxFeePerGas} tip ${tx.maxPriorityFeePerGas}` +
          (s.forwardError ? ` (forward refused: ${s.forwardError})` : ''),
      );
    }
    if (repeats) lines.push(`  … ${repeats} more cop${repeats === 1 ? 'y' : 'ies'}`);
    return lines.join('\n');
  }

  /**
   * Mines destination blocks one at a time, giving the keeper a moment to act on each (its tick follows the pool
   * state's head), until the relay holds a replacement of the deposit's fill.
   */
  async function mineUntilReplaced(relay: RecordingRelay, depositId: string, maxBlocks = 12) {
    for (let blocks = 0; ; blocks++) {
      const found = replacementIn(fillsIn(relay, depositId));
      if (found) return { pair: found, blocks };
      if (blocks >= maxBlocks) {
        const row = await transfer(depositId);
        throw new Error(
          `no replacement of the fill after ${blocks} destination blocks; transfer ${row?.status} ` +
            `(lastError ${row?.lastError ?? 'none'}, hashes ${row?.fillTxHashes.join(',')}); the relay took:\n` +
            timeline(relay),
        );
      }
      await destination.handle.mine();
      await until(() => replacementIn(fillsIn(relay, depositId)) !== undefined, 1_500);
    }
  }

  /** FilledRelay events of the deposit on the destination. */
  const fillEventsOf = (depositId: string) => filledRelayLogs(destination, depositId);

  /** POST /tx-status of the deposit as a client reads it. */
  async function txStatus(depositTxHash: string) {
    const res = await postIntentTxStatus(service.client, depositTxHash);
    expect(res.status).toBe(200);
    return res.body.data!;
  }

  /** The transfer completed once by `minedHash`, one of `hashes`: the row, the chain and the api agree. */
  async function expectFilledOnceBy(
    d: { depositId: string; receipt: TransactionReceipt; outputAmount: bigint },
    recipient: string,
    hashes: readonly string[],
    nonce: number,
  ): Promise<string> {
    const done = await waitForStatus(d.depositId, DONE);
    const events = await fillEventsOf(d.depositId);
    expect(events).toHaveLength(1);
    const minedHash = events[0]!.transactionHash;
    expect(hashes).toContain(minedHash);
    expect(done.fillTxHash).toBe(minedHash);
    const receipt = (await destination.provider.getTransactionReceipt(minedHash))!;
    expect(receipt.status).toBe(1);
    expect(receipt.from).toBe(RELAYER);
    expect((await destination.provider.getTransaction(minedHash))!.nonce).toBe(nonce);
    expect(await tokenBalance(destination, destination.token('USDC'), recipient)).toBe(d.outputAmount);
    expect(await txStatus(d.receipt.hash)).toMatchObject({
      status: 'SUCCESS',
      toTxHash: minedHash,
      toAmount: d.outputAmount.toString(),
    });
    return minedHash;
  }

  /** A deposit whose fill the private relay holds, then a replacement of it: both checked, neither public. */
  async function stuckAndReplaced(relay: RecordingRelay, amount: bigint, recipient: string) {
    const d = await deposit(amount, recipient);
    // The first fill of a keeper waits for its pool state (the gas is valued in the output token).
    const sent = await until(() => fillsIn(relay, d.depositId).length > 0, 120_000, 100);
    if (!sent) {
      const row = await transfer(d.depositId);
      throw new Error(
        `the relay took no fill of deposit ${d.depositId}; transfer ${row?.status} (lastError ${row?.lastError ?? 'none'})`,
      );
    }
    const { pair } = await mineUntilReplaced(relay, d.depositId);
    const [first, replacement] = pair;
    expect(replacement.tx.nonce).toBe(first.tx.nonce);
    expect(replacement.send.hash).not.toBe(first.send.hash);
    expect(replacement.tx.data).toBe(first.tx.data);
    // Held over two more blocks (each watched for a while: an absence takes a window to see) the keeper keeps
    // following it, re-sending and replacing again, and must sign nothing else at its nonce: a nonce-gap filler
    // looks a block after it first sees the chain's count stuck (checked at the end of each case).
    for (let i = 0; i < 2; i++) {
      await destination.handle.mine();
      await until(() => othersAtNonce(relay, d.depositId, first.tx.nonce).length > 0, 2_500);
    }

    const hashes = distinct(fillsIn(relay, d.depositId)).map((f) => f.send.hash);
    // Each copy was recorded on the transfer before it went out; the row still waits for one to be mined.
    const row = (await transfer(d.depositId))!;
    expect(row.status).toBe('filling');
    expect(row.fillNonce).toBe(first.tx.nonce);
    expect(row.fillSender?.toLowerCase()).toBe(RELAYER.toLowerCase());
    for (const hash of hashes) expect(row.fillTxHashes).toContain(hash);
    // Held privately: the public node has seen none of them, and the nonce is still free there.
    for (const hash of hashes)
      expect(await destination.provider.send('eth_getTransactionByHash', [hash])).toBeNull();
    expect(await destination.provider.getTransactionCount(RELAYER, 'latest')).toBe(first.tx.nonce);
    expect(await fillEventsOf(d.depositId)).toHaveLength(0);
    return { d, first, replacement, hashes };
  }

  it('replaces a fill the private relay holds, and completes the transfer once with the copy the relay forwards', async () => {
    const relay = await privateKeeper();
    const recipient = Wallet.createRandom().address;
    const { d, first, hashes } = await stuckAndReplaced(relay, 120n * USDC_UNITS, recipient);

    // The relay forwards all it held, in arrival order: the chain mines the first copy it is given.
    await relay.release();
    const all = distinct(fillsIn(relay, d.depositId)).map((f) => f.send.hash);
    const mined = await expectFilledOnceBy(d, recipient, all, first.tx.nonce);
    expect(hashes).toContain(mined);
    // Every other copy of the nonce is refused by the chain, never mined.
    for (const hash of all.filter((h) => h !== mined))
      expect(await destination.provider.getTransactionReceipt(hash)).toBeNull();
    await expectNothingElseAt(relay, d.depositId, first.tx.nonce);
  });

  it('completes the transfer with the dearest copy when only it reaches the chain', async () => {
    const relay = await privateKeeper();
    const recipient = Wallet.createRandom().address;
    const { d, first } = await stuckAndReplaced(relay, 130n * USDC_UNITS, recipient);

    // The relay keeps holding; only the latest (dearest) copy is handed to the chain, the original never is.
    const latest = distinct(fillsIn(relay, d.depositId)).at(-1)!;
    expect(latest.tx.nonce).toBe(first.tx.nonce);
    expect(bumpedOver(first.tx, latest.tx)).toBe(true);
    await destination.provider.send('eth_sendRawTransaction', [latest.send.raw]);
    const mined = await expectFilledOnceBy(d, recipient, [latest.send.hash], first.tx.nonce);
    expect(mined).toBe(latest.send.hash);
    expect(await destination.provider.getTransactionReceipt(first.send.hash)).toBeNull();
    expect(relay.sends().every((s) => s.forwardedAt === undefined)).toBe(true);
    await expectNothingElseAt(relay, d.depositId, first.tx.nonce);
  });

  it('replaces a public fill priced out by the base fee, and the replacement completes the transfer', async () => {
    await startKeeper();
    const recipient = Wallet.createRandom().address;
    await destination.handle.pauseMining();
    try {
      const d = await deposit(140n * USDC_UNITS, recipient);
      // The fill is signed, recorded and in the destination's pool, no block mined since.
      let row: Transfer | undefined;
      const pooled = await until(
        async () => {
          row = await transfer(d.depositId);
          return (
            row?.status === 'filling' &&
            row.fillTxHash !== null &&
            (await destination.provider.getTransaction(row.fillTxHash)) !== null
          );
        },
        120_000,
        100,
      );
      if (!pooled)
        throw new Error(
          `no fill in the pool: transfer ${row?.status} (lastError ${row?.lastError ?? 'none'})`,
        );
      const firstHash = row!.fillTxHash!;
      const first = (await destination.provider.getTransaction(firstHash))!;
      // Every block from now on asks 5% more base fee than the first fill offers at most: it cannot be included,
      // and a replacement (≥ 12.5% more) can.
      const baseFee = (first.maxFeePerGas! * 105n) / 100n + 1n;
      const mineDear = async () => {
        await destination.provider.send('anvil_setNextBlockBaseFeePerGas', [toQuantity(baseFee)]);
        await destination.handle.mine();
      };

      let blocks = 0;
      for (; !DONE.includes(row!.status); blocks++) {
        if (blocks > 12) {
          throw new Error(
            `transfer ${row?.status} after ${blocks} dear blocks (lastError ${row?.lastError ?? 'none'}, hashes ${row?.fillTxHashes.join(',')})`,
          );
        }
        await mineDear();
        expect((await destination.provider.getBlock('latest'))!.baseFeePerGas).toBe(baseFee);
        const before = row!.fillTxHashes.length;
        await until(
          async () => {
            row = await transfer(d.depositId);
            return row !== undefined && (DONE.includes(row.status) || row.fillTxHashes.length > before);
          },
          1_500,
          100,
        );
      }
      expect(blocks).toBeGreaterThanOrEqual(REPLACE_AFTER_BLOCKS);
      expect(row!.fillTxHashes[0]).toBe(firstHash);
      expect(row!.fillTxHashes.length).toBeGreaterThanOrEqual(2);
      const mined = await expectFilledOnceBy(d, recipient, row!.fillTxHashes, first.nonce);
      expect(mined).not.toBe(firstHash);
      expect(await destination.provider.getTransactionReceipt(firstHash)).toBeNull();
      const replacement = (await destination.provider.getTransaction(mined))!;
      expect(replacement.nonce).toBe(first.nonce);
      expect(bumpedOver(first, replacement)).toBe(true);
    } finally {
      await destination.handle.resumeMining();
    }
  });
});
