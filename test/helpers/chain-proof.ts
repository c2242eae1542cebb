import { setTimeout as sleep } from 'node:timers/promises';
import { toQuantity, type JsonRpcProvider } from 'ethers';
import { orderExecutorInterface } from '../../shared/chain/contract-interfaces';
import { keysOfTransaction, type BatchOrderKey } from './batch-keys';

/**
 * What the chain itself says about an order or a transaction, read with raw JSON-RPC (never through a cache), for
 * the reorg and nonce-gap end-to-end suites: an API answer naming a transaction is only believed when the canonical
 * chain holds that transaction with the order's event. Orders are named by their key (helpers/maker onchainIdOf:
 * the on-chain id but its execution index), each event's order read from its transaction's calldata
 * (helpers/batch-keys).
 */

const TX_HASH = /^0x[0-9a-f]{64}$/;

interface RpcLog {
  address: string;
  topics: string[];
  data: string;
  blockNumber: string;
  blockHash: string;
  transactionHash: string;
}

interface RpcReceipt {
  transactionHash: string;
  blockNumber: string;
  blockHash: string;
  status: string;
  from: string;
  to: string | null;
  logs: RpcLog[];
}

interface RpcTransaction {
  hash: string;
  from: string;
  to: string | null;
  nonce: string;
  value: string;
  input: string;
}

/** One OrderExecuted event on the canonical chain. */
export interface ExecutedOnChain {
  txHash: string;
  blockNumber: number;
  maker: string;
  amountIn: bigint;
  fee: bigint;
  amountOut: bigint;
}

export function orderExecutedTopic(): string {
  return orderExecutorInterface().getEvent('OrderExecuted')!.topicHash;
}

/** The canonical block hash at `blockNumber` (lowercase), undefined when the chain is not that high. */
export async function canonicalHash(
  provider: JsonRpcProvider,
  blockNumber: number,
): Promise<string | undefined> {
  const block = (await provider.send('eth_getBlockByNumber', [toQuantity(blockNumber), false])) as {
    hash: string;
  } | null;
  return block?.hash.toLowerCase();
}

/**
 * Why `txHash` does not prove that the order of key `onchainId` executed on the canonical chain, or undefined when it
 * does: its receipt exists, sits in the canonical block of its height, succeeded, and holds the OrderExecutor's
 * OrderExecuted event for the id of the transaction's order of that key.
 */
export async function executionProblem(
  provider: JsonRpcProvider,
  orderExecutor: string,
  txHash: string | undefined,
  onchainId: string,
): Promise<string | undefined> {
  if (!txHash || !TX_HASH.test(txHash)) return `txHash ${JSON.stringify(txHash)} is not a transaction hash`;
  const receipt = (await provider.send('eth_getTransactionReceipt', [txHash])) as RpcReceipt | null;
  if (!receipt) return `the chain has no receipt for ${txHash}`;
  const height = Number(BigInt(receipt.blockNumber));
  const canonical = await canonicalHash(provider, height);
  if (canonical !== receipt.blockHash.toLowerCase())
    return `the receipt of ${txHash} is in block ${height} ${receipt.blockHash}, not the canonical ${canonical}`;
  if (BigInt(receipt.status) !== 1n) return `${txHash} reverted`;
  const topic = orderExecutedTopic();
  const keys = await keysOfTransaction(provider, txHash);
  const has = receipt.logs.some(
    (l) =>
      l.address.toLowerCase() === orderExecutor.toLowerCase() &&
      l.topics[0]?.toLowerCase() === topic &&
      keys.get(l.topics[1]?.toLowerCase() ?? '')?.key === onchainId.toLowerCase(),
  );
  return has ? undefined : `the receipt of ${txHash} has no OrderExecuted event for ${onchainId}`;
}

/**
 * The OrderExecutor's events (OrderExecuted only, or with OrderFailed) naming the order of key `onchainId` (helpers/
 * maker onchainIdOf) from `fromBlock` on the canonical chain: an order's id binds its execution index, which the
 * store keeps to itself, so every event is matched through the calldata of its transaction.
 */
export async function eventsOfOrder(
  provider: JsonRpcProvider,
  orderExecutor: string,
  onchainId: string,
  opts: { fromBlock?: number; executedOnly?: boolean } = {},
): Promise<RpcLog[]> {
  const iface = orderExecutorInterface();
  const topics = opts.executedOnly
    ? [orderExecutedTopic()]
    : [[orderExecutedTopic(), iface.getEvent('OrderFailed')!.topicHash]];
  const all = (await provider.send('eth_getLogs', [
    { address: orderExecutor, topics, fromBlock: toQuantity(opts.fromBlock ?? 0), toBlock: 'latest' },
  ])) as RpcLog[];
  const batches = new Map<string, Map<string, BatchOrderKey>>();
  const logs: RpcLog[] = [];
  for (const log of all) {
    const txHash = log.transactionHash.toLowerCase();
    let keys = batches.get(txHash);
    if (!keys) batches.set(txHash, (keys = await keysOfTransaction(provider, txHash)));
    if (keys.get(log.topics[1]!.toLowerCase())?.key === onchainId.toLowerCase()) logs.push(log);
  }
  return logs;
}

/** Every OrderExecuted event of the order of key `onchainId` on the whole canonical chain. */
export async function executedOnChain(
  provider: JsonRpcProvider,
  orderExecutor: string,
  onchainId: string,
): Promise<ExecutedOnChain[]> {
  const logs = await eventsOfOrder(provider, orderExecutor, onchainId, { executedOnly: true });
  return logs.map((log) => {
    const parsed = orderExecutorInterface().parseLog({ topics: log.topics, data: log.data })!;
    return {
      txHash: log.transactionHash.toLowerCase(),
      blockNumber: Number(BigInt(log.blockNumber)),
      maker: String(parsed.args.getValue('maker')).toLowerCase(),
      amountIn: parsed.args.getValue('amountIn') as bigint,
      fee: parsed.args.getValue('fee') as bigint,
      amountOut: parsed.args.getValue('amountOut') as bigint,
    };
  });
}

export async function chainNonce(
  provider: JsonRpcProvider,
  address: string,
  tag: 'latest' | 'pending' = 'latest',
): Promise<number> {
  return Number(BigInt(String(await provider.send('eth_getTransactionCount', [address, tag]))));
}

export async function headNumber(provider: JsonRpcProvider): Promise<number> {
  return Number(BigInt(String(await provider.send('eth_blockNumber', []))));
}

/** The transaction of `from` with `nonce` in the canonical blocks `fromBlock`…head, if any. */
export async function transactionAtNonce(
  provider: JsonRpcProvider,
  from: string,
  nonce: number,
  fromBlock: number,
): Promise<
  { hash: string; to: string | null; value: bigint; input: string; blockNumber: number } | undefined
> {
  const head = await headNumber(provider);
  for (let n = fromBlock; n <= head; n++) {
    const block = (await provider.send('eth_getBlockByNumber', [toQuantity(n), true])) as {
      transactions: RpcTransaction[];
    } | null;
    const tx = block?.transactions.find(
      (t) => t.from.toLowerCase() === from.toLowerCase() && Number(BigInt(t.nonce)) === nonce,
    );
    if (tx)
      return {
        hash: tx.hash.toLowerCase(),
        to: tx.to?.toLowerCase() ?? null,
        value: BigInt(tx.value),
        input: tx.input,
        blockNumber: n,
      };
  }
  return undefined;
}

/** What one look at the orders found: contradictions with the chain, and orders still in flight. */
export interface ChainCheck {
  /** Each an order the API shows in a state the chain contradicts (completed without its transaction, …). */
  problems: string[];
  /** Orders still on their way (executing, submitted): not settled yet. */
  inFlight: string[];
  /** The statuses seen, for the error message. */
  statuses: Record<string, string>;
}

/**
 * Looks until the orders have settled in agreement with the chain (no problem and nothing in flight) and stayed so
 * for `stableMs`; a block is mined every `mineEveryMs` meanwhile (a live chain), none when 0. Throws when that does
 * not happen within `timeoutMs`, with the last look and every status an order went through.
 */
export async function untilSettledOnChain(
  what: string,
  look: () => Promise<ChainCheck>,
  opts: { timeoutMs: number; stableMs: number; mine?: () => Promise<void>; mineEveryMs?: number },
): Promise<ChainCheck> {
  const deadline = Date.now() + opts.timeoutMs;
  const history = new Map<string, string[]>();
  let stableSince: number | undefined;
  let lastMine = Date.now();
  let last: ChainCheck | undefined;
  for (;;) {
    last = await look();
    for (const [id, status] of Object.entries(last.statuses)) {
      const seen = history.get(id) ?? [];
      if (seen[seen.length - 1] !== status) history.set(id, [...seen, status]);
    }
    const settled = last.problems.length === 0 && last.inFlight.length === 0;
    if (!settled) stableSince = undefined;
    else {
      stableSince ??= Date.now();
      if (Date.now() - stableSince >= opts.stableMs) return last;
    }
    if (Date.now() > deadline) {
      throw new Error(
        `${what}: not settled in agreement with the chain within ${opts.timeoutMs} ms; ` +
          `problems: ${JSON.stringify(last.problems)}; in flight: ${JSON.stringify(last.inFlight)}; ` +
          `statuses seen: ${JSON.stringify(Object.fromEntries(history))}`,
      );
    }
    if (opts.mine && opts.mineEveryMs && Date.now() - lastMine >= opts.mineEveryMs) {
      await opts.mine();
      lastMine = Date.now();
    }
    await sleep(250);
  }
}
