import type { ChainClient } from '../../shared/chain/chain-client';
import { decodeFundsDeposited, relayHash, type FundsDeposit } from '../../shared/bridges/across/relay-data';
import { spokePoolInterface, lockReleaseBridgeInterface } from '../../shared/bridges/contracts';
import { decodeLocked, type LockedEvent } from '../../shared/bridges/lock-release/locked-event';
import { calldataHash, depositAccount, linkDeposit } from '../../shared/bridges/transfer-builds';
import type {
  DepositLink,
  NewTransfer,
  TransferProvider,
} from '../../shared/store/repositories/transfers-repository';
import type { TickStage } from '../chain-keeper';
import type { RelayContext } from './relay-context';

/** A contract whose deposits the indexer reads: the chain's SpokePool or its LockReleaseBridge. */
export interface IndexedContract {
  provider: TransferProvider;
  address: string;
}

export interface DepositIndexDeps extends RelayContext {
  client: ChainClient;
  contracts: readonly IndexedContract[];
  /** Blocks one eth_getLogs covers at most: a keeper far behind catches up over several ticks. */
  maxRangeBlocks?: number;
  /** Where a contract's first read starts, below the head (a fresh store does not scan the whole chain). */
  initialLookbackBlocks?: number;
  /** How far back a read starts again once the cursor's block left the canonical chain. */
  reorgDepthBlocks?: number;
}

const DEFAULT_MAX_RANGE = 2_000;
const DEFAULT_INITIAL_LOOKBACK = 100_000;
/** Deeper than the devnet keeps state for (anvil --prune-history 64) and than any reorg of our chains. */
const DEFAULT_REORG_DEPTH = 64;

interface RawLog {
  address: string;
  topics: string[];
  data: string;
  blockNumber: string;
  blockHash: string;
  transactionHash: string;
  logIndex: string;
  removed?: boolean;
}

const hex = (n: number): string => `0x${n.toString(16)}`;

function fromIntent(d: FundsDeposit, originChainId: number): NewTransfer {
  const r = d.relayData;
  return {
    provider: 'intent',
    originChainId,
    destinationChainId: Number(d.destinationChainId),
    depositId: r.depositId.toString(),
    depositor: r.depositor,
    recipient: r.recipient,
    exclusiveRelayer: r.exclusiveRelayer,
    inputToken: r.inputToken,
    outputToken: r.outputToken,
    inputAmount: r.inputAmount,
    outputAmount: r.outputAmount,
    message: r.message,
    quoteTimestamp: d.quoteTimestamp,
    fillDeadline: r.fillDeadline,
    exclusivityDeadline: r.exclusivityDeadline,
    relayHash: relayHash(r, d.destinationChainId),
    originContract: d.spokePool,
    depositTxHash: d.transactionHash,
    depositBlockNumber: d.blockNumber,
    depositBlockHash: d.blockHash,
    depositLogIndex: d.logIndex,
  };
}

function fromLock(e: LockedEvent, originChainId: number): NewTransfer {
  return {
    provider: 'lock-release',
    originChainId,
    destinationChainId: Number(e.destinationChainId),
    depositId: e.nonce.toString(),
    depositor: e.depositor,
    recipient: e.recipient,
    exclusiveRelayer: null,
    inputToken: e.inputToken,
    outputToken: e.outputToken,
    inputAmount: e.inputAmount,
    outputAmount: e.outputAmount,
    message: null,
    quoteTimestamp: null,
    // The lock's refund deadline: past it, unaccepted, its depositor may take it back on the origin.
    fillDeadline: e.deadline,
    exclusivityDeadline: null,
    relayHash: null,
    originContract: e.bridge,
    depositTxHash: e.transactionHash,
    depositBlockNumber: e.blockNumber,
    depositBlockHash: e.blockHash,
    depositLogIndex: e.logIndex,
  };
}

/**
 * Reads the deposits of an origin chain into the store: FundsDeposited logs of its SpokePool and Locked logs of its
 * LockReleaseBridge, from each contract's cursor to the head, each with its block number and hash. The cursor keeps
 * the hash of the last block read; when that block is no longer canonical (a reorg) the read steps back and reads
 * again, and a deposit found in another block (or another deposit under a reused id) rewrites its row while nothing
 * was done with it. The cursor moves only after the deposits up to it are stored.
 */
export class DepositIndexStage implements TickStage {
  readonly name = 'relay_index' as const;
  /** Contracts whose cursor has reached the head: nothing to read until a new block. */
  private readonly caughtUp = new Set<string>();

  constructor(private readonly deps: DepositIndexDeps) {}

  async run(_head: number, _now: number, newBlock: boolean): Promise<void> {
    const { deps } = this;
    if (!newBlock && deps.contracts.every((c) => this.caughtUp.has(c.address))) return;
    const chainHead = await deps.client.blockNumber();
    for (const contract of deps.contracts) {
      try {
        await this.index(contract, chainHead);
      } catch (err) {
        deps.log.warn({ err, contract: contract.address }, 'reading deposits failed; trying again next tick');
      }
    }
  }

  private async index(contract: IndexedContract, chainHead: number): Promise<void> {
    const { deps } = this;
    const cursor = await deps.transfers.cursor(deps.chainId, contract.address);
    let from: number;
    if (!cursor) {
      from = Math.max(0, chainHead - (deps.initialLookbackBlocks ?? DEFAULT_INITIAL_LOOKBACK));
    } else {
      const block = await deps.client.getBlock(cursor.blockNumber);
      if (!block || block.hash !== cursor.blockHash) {
        from = Math.max(0, cursor.blockNumber - (deps.reorgDepthBlocks ?? DEFAULT_REORG_DEPTH));
        deps.metrics.reorgDetected(deps.chainId);
        deps.log.warn(
          { contract: contract.address, block: cursor.blockNumber, from },
          'deposit cursor block left the chain: reading again',
        );
      } else {
        from = cursor.blockNumber + 1;
      }
    }
    if (from > chainHead) {
      this.caughtUp.add(contract.address);
      return;
    }
    const to = Math.min(chainHead, from + (deps.maxRangeBlocks ?? DEFAULT_MAX_RANGE) - 1);
    const before = await deps.client.getBlock(to);
    if (!before?.hash) return;
    const topic =
      contract.provider === 'intent'
        ? spokePoolInterface().getEvent('FundsDeposited')!.topicHash
        : lockReleaseBridgeInterface().getEvent('Locked')!.topicHash;
    const raw = (await deps.client.send('eth_getLogs', [
      { address: contract.address, topics: [topic], fromBlock: hex(from), toBlock: hex(to) },
    ])) as RawLog[];
    const after = await deps.client.getBlock(to);
    // The chain moved under the read: the logs may be of either fork. Read again next tick.
    if (after?.hash !== before.hash) return;
    let stored = 0;
    for (const log of raw.filter((l) => l.removed !== true)) {
      const deposit = this.decode(contract, log);
      // A deposit towards a chain this keeper does not serve is not its work (and an id of any size, 2^255 too,
      // must never stop the read of everyone else's deposits).
      if (!deposit || !deps.clients.find(deposit.destinationChainId)) continue;
      const link = await this.linkOf(deposit);
      const result = await deps.transfers.upsertDeposit(deposit, deps.now(), link);
      if (result !== 'unchanged') stored += 1;
    }
    await deps.transfers.setCursor(deps.chainId, contract.address, to, before.hash, deps.now());
    deps.metrics.relayDeposits(deps.chainId, contract.provider, stored);
    if (to >= chainHead) this.caughtUp.add(contract.address);
    else this.caughtUp.delete(contract.address);
    if (stored)
      deps.log.info({ provider: contract.provider, deposits: stored, from, to }, 'deposits indexed');
  }

  /**
   * The build of an API key the deposit was made from (its key gets the transfer's events): only for a depositor
   * with builds on this chain, the source transaction is read and must be exactly one key's build
   * (shared/bridges/transfer-builds.ts). A read that fails fails the tick's read (the cursor stays), so a built
   * transfer is never stored unlinked for an RPC hiccup.
   */
  private async linkOf(deposit: NewTransfer): Promise<DepositLink | null> {
    const { deps } = this;
    const account = depositAccount(deposit);
    if (!account || !(await deps.transfers.hasBuilds(deps.chainId, account))) return null;
    const tx = await deps.client.getTransaction(deposit.depositTxHash);
    if (!tx) {
      deps.log.warn(
        { txHash: deposit.depositTxHash },
        'the source transaction of a deposit is unknown: not linked',
      );
      return null;
    }
    const source = { from: tx.from, to: tx.to, data: tx.data, value: tx.value };
    const builds = await deps.transfers.buildsOf(deps.chainId, account, calldataHash(tx.data));
    const build = builds.length ? linkDeposit(deposit, source, builds) : undefined;
    return build ? { apiKey: build.apiKey, buildId: build.id, source: build.source } : null;
  }

  private decode(contract: IndexedContract, raw: RawLog): NewTransfer | undefined {
    const log = {
      address: raw.address,
      topics: raw.topics,
      data: raw.data,
      blockNumber: Number(BigInt(raw.blockNumber)),
      blockHash: raw.blockHash,
      transactionHash: raw.transactionHash,
      index: Number(BigInt(raw.logIndex)),
    };
    if (contract.provider === 'intent') {
      const deposit = decodeFundsDeposited(log, this.deps.chainId);
      return deposit ? fromIntent(deposit, this.deps.chainId) : undefined;
    }
    const locked = decodeLocked(log);
    return locked ? fromLock(locked, this.deps.chainId) : undefined;
  }
}
