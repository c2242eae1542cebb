import { getAddress, toBeHex, zeroPadValue } from 'ethers';
import { addressToBytes32, bytes32ToAddress, FillStatus } from '../../shared/bridges/across/relay-data';
import {
  buildRelayerRefundTree,
  EMPTY_MERKLE_ROOT,
  type RelayerRefundLeaf,
} from '../../shared/bridges/across/root-bundle';
import { contractLogs } from '../../shared/bridges/chain-reads';
import { rootBundleAdminInterface, spokePoolInterface } from '../../shared/bridges/contracts';
import type { ChainClient, ReceiptSummary } from '../../shared/chain/chain-client';
import type {
  LeafAssignment,
  RootBundle,
  StoredLeaf,
} from '../../shared/store/repositories/root-bundles-repository';
import type { Transfer } from '../../shared/store/repositories/transfers-repository';
import type { TickStage } from '../chain-keeper';
import { clientOf, eachOnItsOwn, TickMemo, type RelayContext } from './relay-context';
import type { RelaySender } from './relay-sender';
import { fillStatusOf, findFill } from './spoke-pool-reads';

export interface SettleStageDeps extends RelayContext {
  /** This (origin) chain's client. */
  client: ChainClient;
  spokePool: string;
  /**
   * The bridge admin: it proposes root bundles to the RootBundleAdmin (or, without one, relays them to the SpokePool
   * it owns) and executes their leaves.
   */
  sender: RelaySender;
  /** This chain's RootBundleAdmin, the SpokePool's owner; absent: the bridge admin owns the SpokePool itself. */
  rootBundleAdmin?: string;
  /** The relayer's address: repayments of its fills go there. */
  relayer: string;
  /** The SpokePool of each destination chain (fill statuses are read there). */
  spokePoolOf(chainId: number): string | undefined;
  /** Blocks a chain's block needs, its own included, before the settlement trusts it. */
  confirmationsOf(chainId: number): number;
  /** Between two settlement rounds. */
  intervalMs?: number;
  /** Transfers one bundle pays at most. */
  maxTransfersPerBundle?: number;
  /** Expiry checks per round at most. */
  maxExpiryChecks?: number;
}

const FILL_SEARCH_BLOCKS = 50_000;

interface RawLog {
  topics: string[];
  data: string;
  transactionHash: string;
  removed?: boolean;
}

function leafOf(stored: StoredLeaf): RelayerRefundLeaf {
  return {
    amountToReturn: BigInt(stored.amountToReturn),
    chainId: BigInt(stored.chainId),
    refundAmounts: stored.refundAmounts.map(BigInt),
    leafId: stored.leafId,
    l2TokenAddress: stored.l2TokenAddress,
    refundAddresses: stored.refundAddresses,
  };
}

/**
 * Settles an origin chain's intent transfers as the HubPool's dataworker would, with the bridge admin key (the
 * SpokePool's owner): repayments of our confirmed fills to the relayer and refunds of expired deposits to their
 * depositors, as one relayer-refund leaf per token in a root bundle. A deposit expires only when a confirmed
 * destination block is past its fill deadline and shows it Unfilled: no fill can land after its deadline, so a late
 * fill and a refund never both happen. The plan (root, leaves, proofs, which transfer each leaf pays) is stored
 * before `relayRootBundle` is sent; every transaction is recorded after signing and before its broadcast, and the
 * chain is checked (the recorded transaction's fate, the leaf's ExecutedRelayerRefundRoot event) before anything is
 * sent again, so a keeper killed anywhere never pays twice.
 */
export class SettleStage implements TickStage {
  readonly name = 'relay_settle' as const;
  private last = 0;

  constructor(private readonly deps: SettleStageDeps) {}

  async run(_head: number, now: number): Promise<void> {
    if (now - this.last < (this.deps.intervalMs ?? 1_000)) return;
    this.last = now;
    await this.expire();
    const open = await this.deps.rootBundles.findOpen(this.deps.chainId);
    if (open) await this.advance(open);
    else await this.plan();
  }

  /** Deposits past their deadline on a confirmed destination block and unfilled there: expired, refund due. */
  private async expire(): Promise<void> {
    const { deps } = this;
    const confirmedBlocks = new TickMemo(async (chainId) => {
      const client = clientOf(deps.clients, chainId);
      const head = await client.blockNumber();
      const block = await client.getBlock(Math.max(0, head - deps.confirmationsOf(chainId) + 1));
      if (!block) throw new Error(`chain ${chainId} has no confirmed block`);
      return block;
    });
    const nowSeconds = Math.floor(deps.now() / 1000);
    // Destination clocks may run ahead of the keeper's (a devnet's warped time): a day of slack in the query, the
    // exact check per transfer below.
    const rows = await deps.transfers.listPastDeadline(
      deps.chainId,
      nowSeconds + 86_400 * 365,
      deps.maxExpiryChecks ?? 10,
    );
    const originHead = rows.length ? await deps.client.blockNumber() : 0;
    await eachOnItsOwn(
      rows,
      (t) => t.id,
      async (t) => {
        const spoke = deps.spokePoolOf(t.destinationChainId);
        if (!spoke || !t.relayHash || t.fillDeadline === null) return;
        if (originHead - t.depositBlockNumber + 1 < deps.confirmationsOf(deps.chainId)) return;
        const confirmed = await confirmedBlocks.get(t.destinationChainId);
        if (confirmed.timestamp <= t.fillDeadline) return;
        const receipt = await deps.client.getTransactionReceipt(t.depositTxHash);
        if (!receipt || receipt.blockHash !== t.depositBlockHash) {
          await deps.transfers.markReorged(t.id, deps.now());
          return;
        }
        const destination = clientOf(deps.clients, t.destinationChainId);
        const status = await fillStatusOf(destination, spoke, t.relayHash, confirmed.number);
        if (status === FillStatus.Filled) {
          await this.resolveFilled(t, destination, spoke, confirmed.number);
          return;
        }
        if (await deps.transfers.markExpired(t.id, deps.now())) {
          deps.metrics.relayExpired(deps.chainId);
          deps.log.info(
            { transferId: t.id, depositId: t.depositId, fillDeadline: t.fillDeadline },
            'deposit expired unfilled: refund due',
          );
        }
      },
      this.failed,
    );
  }

  private async resolveFilled(t: Transfer, client: ChainClient, spoke: string, head: number): Promise<void> {
    const { deps } = this;
    const fill = await findFill(client, spoke, t, head - FILL_SEARCH_BLOCKS);
    const ours = addressToBytes32(deps.relayer);
    if (fill && fill.relayer === ours) await deps.transfers.markFilled(t.id, fill, deps.now());
    else await deps.transfers.markFilledByOther(t.id, fill?.relayer ?? null, fill, deps.now());
  }

  /** A new bundle of the confirmed fills to repay and expired deposits to refund, stored before it is sent. */
  private async plan(): Promise<void> {
    const { deps } = this;
    const candidates = await deps.transfers.listToSettle(deps.chainId, deps.maxTransfersPerBundle ?? 50);
    if (!candidates.length) return;
    const destinationHeads = new TickMemo((chainId) => clientOf(deps.clients, chainId).blockNumber());
    const ready: Transfer[] = [];
    for (const t of candidates) {
      if (t.status === 'expired') {
        ready.push(t);
        continue;
      }
      try {
        if (await this.fillConfirmed(t, await destinationHeads.get(t.destinationChainId))) ready.push(t);
      } catch (err) {
        this.failed(t.id, err);
      }
    }
    if (!ready.length) return;
    const { leaves, assignments } = this.leavesOf(ready);
    const tree = buildRelayerRefundTree(leaves);
    const stored: StoredLeaf[] = leaves.map((leaf, i) => ({
      leafId: leaf.leafId,
      chainId: Number(leaf.chainId),
      amountToReturn: leaf.amountToReturn.toString(),
      l2TokenAddress: leaf.l2TokenAddress,
      refundAddresses: leaf.refundAddresses,
      refundAmounts: leaf.refundAmounts.map(String),
      proof: tree.proofs[i]!,
    }));
    const bundle = await deps.rootBundles.create(
      { chainId: deps.chainId, spokePool: deps.spokePool, root: tree.root, leaves: stored, assignments },
      deps.owner,
      deps.leaseMs,
      deps.now(),
    );
    if (!bundle) return;
    deps.metrics.relayBundle(deps.chainId, 'planned');
    deps.log.info(
      { bundle: bundle.id, root: tree.root, leaves: leaves.length, transfers: assignments.length },
      'root bundle planned',
    );
    await this.advance(bundle);
  }

  /**
   * Whether our fill is in a confirmed destination block that is still canonical. A fill whose block left the
   * chain goes back to `filling`, followed again by its destination's fill stage under this keeper's lease.
   */
  private async fillConfirmed(t: Transfer, destinationHead: number): Promise<boolean> {
    const { deps } = this;
    if (t.fillBlockNumber === null || !t.fillTxHash) return false;
    if (destinationHead - t.fillBlockNumber + 1 < deps.confirmationsOf(t.destinationChainId)) return false;
    const receipt = await clientOf(deps.clients, t.destinationChainId).getTransactionReceipt(t.fillTxHash);
    if (receipt && receipt.blockHash === t.fillBlockHash && receipt.status === 1) return true;
    await deps.transfers.markFillReorged(t.id, deps.owner, deps.leaseMs, deps.now());
    deps.log.warn(
      { transferId: t.id, txHash: t.fillTxHash },
      'fill left its destination block: following again',
    );
    return false;
  }

  /** One leaf per input token: the relayer's repayments and the depositors' refunds, summed per address. */
  private leavesOf(transfers: readonly Transfer[]): {
    leaves: RelayerRefundLeaf[];
    assignments: LeafAssignment[];
  } {
    const { deps } = this;
    const byToken = new Map<string, Map<string, bigint>>();
    const tokenOf = new Map<string, string>();
    for (const t of transfers) {
      const token = bytes32ToAddress(t.inputToken);
      const payee = t.status === 'filled' ? getAddress(deps.relayer) : bytes32ToAddress(t.depositor);
      const amounts = byToken.get(token) ?? new Map<string, bigint>();
      amounts.set(payee, (amounts.get(payee) ?? 0n) + t.inputAmount);
      byToken.set(token, amounts);
      tokenOf.set(t.id, token);
    }
    const tokens = [...byToken.keys()].sort();
    const leaves = tokens.map((token, leafId): RelayerRefundLeaf => {
      const amounts = [...byToken.get(token)!.entries()].sort(([a], [b]) => (a < b ? -1 : 1));
      return {
        amountToReturn: 0n,
        chainId: BigInt(deps.chainId),
        refundAmounts: amounts.map(([, amount]) => amount),
        leafId,
        l2TokenAddress: token,
        refundAddresses: amounts.map(([address]) => address),
      };
    });
    const assignments = transfers.map((t): LeafAssignment => ({
      transferId: t.id,
      kind: t.status === 'filled' ? 'repayment' : 'refund',
      leafId: tokens.indexOf(tokenOf.get(t.id)!),
    }));
    return { leaves, assignments };
  }

  /** Moves the open bundle on by one step per round: relay its root, then execute its leaves. */
  private async advance(bundle: RootBundle): Promise<void> {
    const { deps } = this;
    if (!(await deps.rootBundles.claim(bundle.id, deps.owner, deps.leaseMs, deps.now()))) return;
    let current: RootBundle | undefined = bundle;
    if (current.state === 'planned') {
      await this.relay(current);
      current = await deps.rootBundles.findById(bundle.id);
    }
    if (current?.state === 'relayed') await this.executeLeaves(current);
  }

  private async relay(bundle: RootBundle): Promise<void> {
    const { deps } = this;
    const admin = deps.rootBundleAdmin;
    if (!bundle.relayTx) {
      const data = admin
        ? rootBundleAdminInterface().encodeFunctionData('propose', [bundle.root, EMPTY_MERKLE_ROOT])
        : spokePoolInterface().encodeFunctionData('relayRootBundle', [bundle.root, EMPTY_MERKLE_ROOT]);
      const result = await deps.sender.send({ to: admin ?? deps.spokePool, data }, (signed) =>
        deps.rootBundles.recordRelayTx(
          bundle.id,
          deps.owner,
          { txHash: signed.hash, rawTx: signed.raw, nonce: signed.nonce, sender: signed.wallet },
          deps.now(),
        ),
      );
      if (result.kind === 'reverted' || result.kind === 'not-sent') {
        await deps.rootBundles.setError(bundle.id, `relayRootBundle not sent: ${result.reason}`, deps.now());
        deps.log.warn({ bundle: bundle.id, reason: result.reason }, 'relayRootBundle not sent');
        return;
      }
      const recorded = await deps.rootBundles.findById(bundle.id);
      if (!recorded?.relayTx) return;
      bundle = recorded;
    }
    const fate = await deps.sender.follow(bundle.relayTx!, 0);
    if (fate.kind === 'pending') return;
    if (fate.kind === 'mined' && fate.receipt.status === 1) {
      const rootBundleId = admin
        ? await this.proposalRelayed(bundle, admin, fate.receipt)
        : this.relayedId(fate.receipt);
      if (rootBundleId === undefined) {
        if (admin) return;
        throw new Error(`relayRootBundle ${fate.receipt.hash} emitted no RelayedRootBundle`);
      }
      if (await deps.rootBundles.markRelayed(bundle.id, rootBundleId, deps.now())) {
        deps.metrics.relayBundle(deps.chainId, 'relayed');
        deps.log.info({ bundle: bundle.id, rootBundleId, txHash: fate.receipt.hash }, 'root bundle relayed');
      }
      return;
    }
    const error =
      fate.kind === 'mined' ? `relayRootBundle ${fate.receipt.hash} reverted` : 'relayRootBundle dropped';
    await deps.rootBundles.clearRelayTx(bundle.id, deps.owner, error, deps.now());
    deps.log.warn({ bundle: bundle.id }, `${error}: sending again`);
  }

  /**
   * The root bundle id of a mined proposal once it reached the SpokePool (a RelayedRootBundle of its root since the
   * proposal); until then, once its challenge period is over, executes it (anyone may). A proposal the owner
   * disputed is cleared, to be proposed again at the next round and so brought to the owner's attention again; one
   * made before the proposer was rotated is proposed again under the current key.
   */
  private async proposalRelayed(
    bundle: RootBundle,
    admin: string,
    proposal: ReceiptSummary,
  ): Promise<number | undefined> {
    const { deps } = this;
    const iface = rootBundleAdminInterface();
    const proposed = proposal.logs
      .filter((log) => log.address.toLowerCase() === admin.toLowerCase())
      .map((log) => iface.parseLog({ topics: [...log.topics], data: log.data }))
      .find((parsed) => parsed?.name === 'RootBundleProposed');
    if (!proposed) throw new Error(`propose ${proposal.hash} emitted no RootBundleProposed`);
    const relayed = spokePoolInterface().getEvent('RelayedRootBundle')!.topicHash;
    const relayedSince = async (): Promise<number | undefined> =>
      this.relayedId({
        logs: await contractLogs(
          deps.client,
          deps.spokePool,
          [relayed, null, bundle.root],
          proposal.blockNumber,
        ),
      });
    const already = await relayedSince();
    if (already !== undefined) return already;
    const id = proposed.args.id as bigint;
    const pending = iface.decodeFunctionResult(
      'proposals',
      await deps.client.call({ to: admin, data: iface.encodeFunctionData('proposals', [id]) }),
    )[0] as { executableAt: bigint; epoch: bigint };
    const epoch = iface.decodeFunctionResult(
      'proposerEpoch',
      await deps.client.call({ to: admin, data: iface.encodeFunctionData('proposerEpoch', []) }),
    )[0] as bigint;
    if (pending.executableAt !== 0n && pending.epoch !== epoch) {
      // Proposed before the proposer was rotated: never executable. Proposed again under the current key.
      await deps.rootBundles.clearRelayTx(bundle.id, deps.owner, 'proposed under a rotated key', deps.now());
      deps.log.warn(
        { bundle: bundle.id, proposal: id.toString() },
        'root bundle proposed again after a rotation',
      );
      return undefined;
    }
    if (pending.executableAt === 0n) {
      // Executed by someone else since the first look, or disputed.
      const executed = await relayedSince();
      if (executed !== undefined) return executed;
      await deps.rootBundles.clearRelayTx(
        bundle.id,
        deps.owner,
        'root bundle disputed by the owner',
        deps.now(),
      );
      deps.log.error({ bundle: bundle.id, proposal: id.toString() }, 'root bundle disputed by the owner');
      return undefined;
    }
    const result = await deps.sender.send(
      { to: admin, data: iface.encodeFunctionData('execute', [id]) },
      async () => true,
    );
    if (result.kind !== 'sent') return undefined;
    // A chain that mines on demand has it at once; otherwise the next round finds its RelayedRootBundle.
    const executed = await deps.client.getTransactionReceipt(result.tx.txHash);
    return executed?.status === 1 ? this.relayedId(executed) : undefined;
  }

  private relayedId(receipt: {
    logs: ReadonlyArray<{ address: string; topics: readonly string[]; data: string }>;
  }): number | undefined {
    const iface = spokePoolInterface();
    for (const log of receipt.logs) {
      if (log.address.toLowerCase() !== this.deps.spokePool.toLowerCase()) continue;
      const parsed = iface.parseLog({ topics: [...log.topics], data: log.data });
      if (parsed?.name === 'RelayedRootBundle') return Number(parsed.args.rootBundleId as bigint);
    }
    return undefined;
  }

  private async executeLeaves(bundle: RootBundle): Promise<void> {
    const { deps } = this;
    const rootBundleId = bundle.rootBundleId!;
    for (const stored of bundle.leaves) {
      const recorded = bundle.leafTxs[stored.leafId];
      if (recorded?.executed) continue;
      if (recorded) {
        const fate = await deps.sender.follow(recorded, 0);
        if (fate.kind === 'pending') continue;
        if (fate.kind === 'mined' && fate.receipt.status === 1) {
          await this.leafExecuted(bundle, stored.leafId, fate.receipt.hash);
          continue;
        }
        const onChain = await this.executedOnChain(rootBundleId, stored.leafId);
        if (onChain) await this.leafExecuted(bundle, stored.leafId, onChain);
        else await deps.rootBundles.clearLeafTx(bundle.id, deps.owner, stored.leafId, deps.now());
        continue;
      }
      // Nothing recorded: the chain is still asked first (another keeper of an older run may have executed it).
      const onChain = await this.executedOnChain(rootBundleId, stored.leafId);
      if (onChain) {
        await this.leafExecuted(bundle, stored.leafId, onChain);
        continue;
      }
      const data = spokePoolInterface().encodeFunctionData('executeRelayerRefundLeaf', [
        rootBundleId,
        leafOf(stored),
        stored.proof,
      ]);
      const result = await deps.sender.send({ to: deps.spokePool, data }, (signed) =>
        deps.rootBundles.recordLeafTx(
          bundle.id,
          deps.owner,
          stored.leafId,
          { txHash: signed.hash, rawTx: signed.raw, nonce: signed.nonce, sender: signed.wallet },
          deps.now(),
        ),
      );
      if (result.kind === 'sent') {
        const fate = await deps.sender.follow(result.tx, 0);
        if (fate.kind === 'mined' && fate.receipt.status === 1)
          await this.leafExecuted(bundle, stored.leafId, fate.receipt.hash);
      } else if (result.kind !== 'recorded') {
        await deps.rootBundles.setError(
          bundle.id,
          `leaf ${stored.leafId} not sent: ${result.reason}`,
          deps.now(),
        );
        deps.log.warn(
          { bundle: bundle.id, leafId: stored.leafId, reason: result.reason },
          'leaf not executed',
        );
      }
    }
  }

  private async leafExecuted(bundle: RootBundle, leafId: number, txHash: string): Promise<void> {
    const { deps } = this;
    const { repaid, refunded } = await deps.rootBundles.markLeafExecuted(
      bundle.id,
      leafId,
      txHash,
      deps.now(),
    );
    deps.metrics.relaySettlement(deps.chainId, 'repayment', repaid);
    deps.metrics.relaySettlement(deps.chainId, 'refund', refunded);
    deps.log.info({ bundle: bundle.id, leafId, txHash, repaid, refunded }, 'root bundle leaf executed');
    const after = await deps.rootBundles.findById(bundle.id);
    if (after?.state === 'executed' && bundle.state !== 'executed') {
      bundle.state = 'executed';
      deps.metrics.relayBundle(deps.chainId, 'executed');
    }
  }

  /** The transaction that executed a leaf, from the SpokePool's ExecutedRelayerRefundRoot event; undefined if none. */
  private async executedOnChain(rootBundleId: number, leafId: number): Promise<string | undefined> {
    const { deps } = this;
    const iface = spokePoolInterface();
    const logs = (await deps.client.send('eth_getLogs', [
      {
        address: deps.spokePool,
        topics: [
          iface.getEvent('ExecutedRelayerRefundRoot')!.topicHash,
          zeroPadValue(toBeHex(deps.chainId), 32),
          zeroPadValue(toBeHex(rootBundleId), 32),
          zeroPadValue(toBeHex(leafId), 32),
        ],
        fromBlock: '0x0',
        toBlock: 'latest',
      },
    ])) as RawLog[];
    return logs.find((l) => !l.removed)?.transactionHash;
  }

  private readonly failed = (id: string, err: unknown): void => {
    this.deps.log.warn({ err, transferId: id }, 'settling a transfer failed; trying again next round');
  };
}
