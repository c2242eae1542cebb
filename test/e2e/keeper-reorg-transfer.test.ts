import { Wallet, type TransactionReceipt } from 'ethers';
import { addressToBytes32, fundsDepositsOf } from '../../shared/bridges/across/relay-data';
import { spokePoolInterface } from '../../shared/bridges/contracts';
import { erc20Interface } from '../../shared/chain/contract-interfaces';
import type { Transfer } from '../../shared/store/repositories/transfers-repository';
import { canonicalHash, headNumber, untilSettledOnChain, type ChainCheck } from '../helpers/chain-proof';
import {
  depositOnSpokePool,
  depositorWallet,
  filledRelayTopics,
  ORIGIN,
  postIntentTxStatus,
  RELAYER,
  sendAndConfirm,
  startRelayE2e,
  tokenBalance,
  type RelaySide,
} from '../helpers/relay-e2e';
import type { RunningService } from '../helpers/service-harness';

/**
 * Reorg-safe delivery of a cross-chain intent transfer (1 → 137), end to end on two anvil devnet chains with the
 * keeper as relayer (as in keeper-relayer.test.ts). Once the transfer is reported done (`filled` or `repaid` in the
 * store, a success value from POST /tx-status), its fill is taken off the destination chain by a reorg deeper than
 * the keeper's confirmations. The transfer must not stay done with a fill the destination does not have, and must
 * end filled exactly once: one FilledRelay event for its deposit, the recipient paid once.
 */

jest.setTimeout(240_000);

const USDC_UNITS = 10n ** 6n;
// Done for the integrator: filled by us (then repaid), or by another relayer.
const DONE = ['filled', 'repaid', 'filled_by_other'];
const WAITING = ['deposited', 'filling'];
const TX_STATUS_SUCCESS = ['SUCCESS', 'DONE', 'success', 'Success'];
const MINE_EVERY_MS = 2_000;
const STABLE_MS = 3_000;
// anvil_reorg and anvil_setNonce are anvil's (the devnet's default engine); on ganache these fail, never skip.
const onAnvil = describe;

interface Deposit {
  depositId: string;
  receipt: TransactionReceipt;
  recipient: string;
  outputAmount: bigint;
}

onAnvil('a cross-chain fill reorged away after the transfer was reported done', () => {
  let service: RunningService;
  let origin: RelaySide;
  let destination: RelaySide;

  beforeAll(async () => {
    ({ service, origin, destination } = await startRelayE2e({
      env: {
        INTENT_CONFIRMATIONS: '2',
        KEEPER_CONFIRMATIONS: '1',
        CROSS_CHAIN_FILL_DEADLINE_SECONDS: '600',
      },
    }));
  }, 150_000);

  afterAll(async () => {
    await service?.close();
  });

  const store = () => service.api.store;

  /**
   * A USDC → USDC deposit straight on the origin SpokePool to a fresh recipient, our relayer exclusive for 30 s;
   * INTENT_CONFIRMATIONS = 2: one origin block mined on top of the deposit's.
   */
  async function deposit(amount: bigint, exclusiveRelayer?: string): Promise<Deposit> {
    const recipient = Wallet.createRandom().address;
    const { depositId, receipt, outputAmount } = await depositOnSpokePool(origin, destination, {
      amount,
      recipient,
      ...(exclusiveRelayer ? { exclusiveRelayer, exclusivityParameter: 10 } : {}),
    });
    return { depositId, receipt, recipient, outputAmount };
  }

  async function transfer(depositId: string): Promise<Transfer | undefined> {
    return store().transfers.findByDeposit('intent', ORIGIN, depositId);
  }

  /** FilledRelay events of the deposit on the destination's canonical chain. */
  async function fillEvents(depositId: string): Promise<{ transactionHash: string }[]> {
    return (await destination.provider.send('eth_getLogs', [
      {
        address: destination.spokePool,
        topics: filledRelayTopics(depositId),
        fromBlock: '0x0',
        toBlock: 'latest',
      },
    ])) as { transactionHash: string }[];
  }

  /**
   * Why `txHash` does not prove the deposit filled on the destination's canonical chain, or undefined: a receipt in
   * the canonical block of its height, successful, with the SpokePool's FilledRelay event for this deposit.
   */
  async function fillProblem(
    txHash: string | null | undefined,
    depositId: string,
  ): Promise<string | undefined> {
    if (!txHash) return 'no fill transaction named';
    const receipt = (await destination.provider.send('eth_getTransactionReceipt', [txHash])) as {
      blockNumber: string;
      blockHash: string;
      status: string;
      logs: { address: string; topics: string[] }[];
    } | null;
    if (!receipt) return `the destination has no receipt for ${txHash}`;
    const height = Number(BigInt(receipt.blockNumber));
    const canonical = await canonicalHash(destination.provider, height);
    if (canonical !== receipt.blockHash.toLowerCase())
      return `the receipt of ${txHash} is in block ${height} ${receipt.blockHash}, not the canonical ${canonical}`;
    if (BigInt(receipt.status) !== 1n) return `${txHash} reverted`;
    const topic = spokePoolInterface().getEvent('FilledRelay')!.topicHash;
    const has = receipt.logs.some(
      (l) =>
        l.address.toLowerCase() === destination.spokePool.toLowerCase() &&
        l.topics[0] === topic &&
        BigInt(l.topics[1]!) === BigInt(ORIGIN) &&
        BigInt(l.topics[2]!) === BigInt(depositId),
    );
    return has ? undefined : `the receipt of ${txHash} has no FilledRelay for deposit ${depositId}`;
  }

  /** POST /tx-status of the deposit as a client reads it. */
  async function txStatus(depositTxHash: string): Promise<{ status: string; toTxHash?: string | null }> {
    const res = await postIntentTxStatus(service.client, depositTxHash);
    if (res.status !== 200) return { status: `HTTP ${res.status}` };
    return res.body.data!;
  }

  /**
   * Done only when the store and POST /tx-status report the transfer done with a fill the destination has. A done
   * report with a fill the destination lacks is a problem; an end other than done throws.
   */
  async function lookAtTransfer(d: Deposit): Promise<ChainCheck> {
    const check: ChainCheck = { problems: [], inFlight: [], statuses: {} };
    const t = await transfer(d.depositId);
    const api = await txStatus(d.receipt.hash);
    check.statuses[d.depositId] =
      `${t?.status ?? 'not stored'} ${t?.fillTxHash ?? ''} | tx-status ${api.status}`;
    if (!t || WAITING.includes(t.status))
      check.inFlight.push(`transfer ${d.depositId} ${t?.status ?? 'not stored'}`);
    else if (DONE.includes(t.status)) {
      const problem = await fillProblem(t.fillTxHash, d.depositId);
      if (problem) check.problems.push(`the transfer is ${t.status} but ${problem}`);
    } else throw new Error(`transfer ${d.depositId} ended ${t.status}: ${t.lastError ?? ''}`);
    if (TX_STATUS_SUCCESS.includes(api.status)) {
      const problem = await fillProblem(api.toTxHash, d.depositId);
      if (problem) check.problems.push(`POST /tx-status says ${api.status} but ${problem}`);
    } else check.inFlight.push(`tx-status ${api.status}`);
    return check;
  }

  function untilDone(what: string, d: Deposit, timeoutMs: number, stableMs: number): Promise<ChainCheck> {
    return untilSettledOnChain(what, () => lookAtTransfer(d), {
      timeoutMs,
      stableMs,
      mine: () => destination.handle.mine(),
      mineEveryMs: MINE_EVERY_MS,
    });
  }

  /** Filled exactly once: one FilledRelay event, named by the store and the api, and the recipient paid once. */
  async function expectFilledOnce(d: Deposit): Promise<void> {
    const events = await fillEvents(d.depositId);
    expect(events).toHaveLength(1);
    const t = (await transfer(d.depositId))!;
    expect(DONE).toContain(t.status);
    expect(t.fillTxHash?.toLowerCase()).toBe(events[0]!.transactionHash.toLowerCase());
    expect(await fillProblem(t.fillTxHash, d.depositId)).toBeUndefined();
    const api = await txStatus(d.receipt.hash);
    expect(TX_STATUS_SUCCESS).toContain(api.status);
    expect(api.toTxHash?.toLowerCase()).toBe(events[0]!.transactionHash.toLowerCase());
    expect(await tokenBalance(destination, destination.token('USDC'), d.recipient)).toBe(d.outputAmount);
  }

  it('anvil_reorg replacing the fill’s block with empty ones: the transfer goes back in flight and ends filled exactly once', async () => {
    const d = await deposit(40n * USDC_UNITS);
    // The first fill waits for the keeper's pool state (the gas is valued in the output token).
    await untilDone('the transfer to be filled', d, 120_000, 0);
    const filled = (await transfer(d.depositId))!;
    const fill = (await destination.provider.getTransactionReceipt(filled.fillTxHash!))!;
    expect(fill.from).toBe(RELAYER);
    expect(await fillEvents(d.depositId)).toHaveLength(1);

    const depth = (await headNumber(destination.provider)) - fill.blockNumber + 1;
    await destination.provider.send('anvil_reorg', [depth, []]);
    expect(await canonicalHash(destination.provider, fill.blockNumber)).not.toBe(
      fill.blockHash.toLowerCase(),
    );
    expect(await fillEvents(d.depositId)).toHaveLength(0);
    expect(await tokenBalance(destination, destination.token('USDC'), d.recipient)).toBe(0n);
    await destination.handle.mine(2);

    await untilDone('the transfer after anvil_reorg', d, 60_000, STABLE_MS);
    await expectFilledOnce(d);
  }, 240_000);

  it("another relayer's fill, reported done, reorged away: the deposit is filled again, exactly once", async () => {
    // Another relayer (a funded test account of the destination) holds the exclusivity for 10 s and fills at once.
    const other = depositorWallet(destination, 1);
    const d = await deposit(20n * USDC_UNITS, other.address);
    const usdc = destination.token('USDC');
    expect(await tokenBalance(destination, usdc, other.address)).toBeGreaterThanOrEqual(d.outputAmount);
    await sendAndConfirm(
      other,
      usdc,
      erc20Interface().encodeFunctionData('approve', [destination.spokePool, d.outputAmount]),
    );
    const [deposited] = fundsDepositsOf(d.receipt.logs, origin.spokePool, ORIGIN);
    const theirs = await sendAndConfirm(
      other,
      destination.spokePool,
      spokePoolInterface().encodeFunctionData('fillRelay', [
        deposited!.relayData,
        ORIGIN,
        addressToBytes32(other.address),
      ]),
    );

    // Reported done, naming the other relayer's fill: its transaction is the transfer's destination transaction.
    await untilDone('the transfer to be seen filled by another relayer', d, 60_000, 0);
    const seen = (await transfer(d.depositId))!;
    expect(seen).toMatchObject({ status: 'filled_by_other', filledBy: addressToBytes32(other.address) });
    expect(seen.fillTxHash?.toLowerCase()).toBe(theirs.hash.toLowerCase());
    expect((await txStatus(d.receipt.hash)).toTxHash?.toLowerCase()).toBe(theirs.hash.toLowerCase());

    const depth = (await headNumber(destination.provider)) - theirs.blockNumber + 1;
    await destination.provider.send('anvil_reorg', [depth, []]);
    expect(await fillEvents(d.depositId)).toHaveLength(0);
    expect(await tokenBalance(destination, usdc, d.recipient)).toBe(0n);
    await destination.handle.mine(2);

    // Whoever fills it now (we, once the exclusivity is over, or the other's transaction mined again), the transfer
    // ends done with the one fill the destination has, the recipient paid once.
    await untilDone('the transfer after its fill was reorged away', d, 90_000, STABLE_MS);
    await expectFilledOnce(d);
  }, 240_000);

  it('evm_revert of the destination to before the fill, then 8 blocks: the transfer ends filled exactly once', async () => {
    const snapshot = await destination.handle.snapshot();
    const d = await deposit(30n * USDC_UNITS);
    await untilDone('the transfer to be filled', d, 60_000, 0);
    const filled = (await transfer(d.depositId))!;
    const fill = (await destination.provider.getTransactionReceipt(filled.fillTxHash!))!;

    await destination.handle.revert(snapshot);
    await destination.handle.mine(8);
    expect(await canonicalHash(destination.provider, fill.blockNumber)).not.toBe(
      fill.blockHash.toLowerCase(),
    );
    // Nothing was paid on the reverted chain yet (the keeper may already be filling it again: at most once).
    expect((await fillEvents(d.depositId)).length).toBeLessThanOrEqual(1);

    await untilDone('the transfer after evm_revert', d, 60_000, STABLE_MS);
    await expectFilledOnce(d);
  }, 240_000);
});
