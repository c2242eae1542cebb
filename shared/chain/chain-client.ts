import { setTimeout as sleep } from 'node:timers/promises';
import type { Block, BlockTag, JsonRpcProvider, TransactionReceipt, TransactionResponse } from 'ethers';
import type { ChainConfig } from '../config/config-schema';
import type { Logger } from '../log/create-logger';
import { redactUrl } from './redact-url';
import { RpcUnavailableError, classifyRpcFailure, sanitizedError } from './rpc-errors';
import type { RpcMetrics } from './rpc-metrics';
import { rpcProvider } from './rpc-provider';

export interface ChainClientOptions {
  /** Per HTTP request to a node, reading the answer included. */
  timeoutMs?: number;
  /** Retries of a call after a transient failure (at least every URL is tried once whatever this is). */
  retries?: number;
  /** Wait before returning to a URL that already failed in this call; doubles each time, with jitter. */
  backoffMs?: number;
  metrics?: RpcMetrics;
  log?: Logger;
}

/** What eth_call and eth_estimateGas need; addresses as 0x-hex, amounts in wei. */
export interface CallRequest {
  to: string;
  data: string;
  from?: string;
  value?: bigint;
  gasLimit?: bigint;
}

export interface ChainFeeData {
  /** eth_gasPrice: what a legacy transaction would pay per gas. */
  gasPrice: bigint;
  /** Base fee of the latest block; null on chains without EIP-1559. */
  baseFeePerGas: bigint | null;
  /** eth_maxPriorityFeePerGas; null where the node does not implement it. */
  maxPriorityFeePerGas: bigint | null;
  /** 2 × base fee + priority fee: survives six full blocks of base-fee increases (ethers' convention). */
  maxFeePerGas: bigint | null;
}

/** eth_getTransactionReceipt's answer, the fields read from it. */
interface RawReceipt {
  transactionHash: string;
  blockHash: string;
  blockNumber: string;
  status?: string | null;
  gasUsed: string;
  effectiveGasPrice?: string;
  gasPrice?: string;
  logs: { address: string; topics: string[]; data: string; transactionHash: string; logIndex: string }[];
}

/** A log of a receipt, its numbers parsed (what ethers' Log carries that the keeper reads). */
export interface ReceiptLog {
  /** As the node spells it (compare lowercase). */
  address: string;
  topics: readonly string[];
  data: string;
  transactionHash: string;
  blockNumber: number;
  blockHash: string;
  index: number;
}

/** A receipt with raw logs (addresses as the node spells them): see ChainClient.getReceiptSummary. */
export interface ReceiptSummary {
  hash: string;
  blockHash: string;
  blockNumber: number;
  /** 1 success, 0 reverted; null before byzantium. */
  status: number | null;
  gasUsed: bigint;
  /** The effective gas price paid. */
  gasPrice: bigint;
  logs: readonly ReceiptLog[];
}

interface Endpoint {
  /** The URL without credentials, for logs. */
  label: string;
  provider: JsonRpcProvider;
}

export const DEFAULT_TIMEOUT_MS = 5000;
export const DEFAULT_RETRIES = 2;
export const DEFAULT_BACKOFF_MS = 100;

/**
 * JSON-RPC access to one chain over its configured URLs. Every call gets a timeout per request, retries with
 * backoff after transient failures and fails over to the next URL; deterministic errors (reverts, invalid
 * params) reach the caller at once, as ethers raised them. Calls start at the URL that last answered, so a dead
 * primary costs one failed request, not one per call.
 */
export class ChainClient {
  readonly chainId: number;
  readonly name: string;
  private readonly endpoints: Endpoint[];
  private readonly retries: number;
  private readonly backoffMs: number;
  private readonly metrics?: RpcMetrics;
  private readonly log?: Logger;
  /** Index of the URL the next call starts at: the last one that answered, or the next after a failure. */
  private current = 0;

  constructor(config: Pick<ChainConfig, 'chainId' | 'name' | 'rpcUrls'>, opts: ChainClientOptions = {}) {
    if (config.rpcUrls.length === 0)
      throw new Error(`chain ${config.chainId} (${config.name}) has no RPC URL`);
    const timeoutMs = opts.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    this.retries = opts.retries ?? DEFAULT_RETRIES;
    this.backoffMs = opts.backoffMs ?? DEFAULT_BACKOFF_MS;
    if (!(timeoutMs > 0) || !Number.isInteger(this.retries) || this.retries < 0 || !(this.backoffMs >= 0)) {
      throw new Error(
        `invalid RPC options: timeoutMs ${timeoutMs}, retries ${this.retries}, backoffMs ${this.backoffMs}`,
      );
    }
    this.chainId = config.chainId;
    this.name = config.name;
    this.metrics = opts.metrics;
    this.log = opts.log;
    this.endpoints = config.rpcUrls.map((url) => ({
      label: redactUrl(url),
      provider: rpcProvider(url, config.chainId, config.name, timeoutMs),
    }));
  }

  /** A raw JSON-RPC call; the result as the node sent it. */
  send(method: string, params: readonly unknown[] = []): Promise<unknown> {
    return this.execute(method, (p) => p.send(method, [...params]));
  }

  blockNumber(): Promise<number> {
    return this.execute('eth_blockNumber', (p) => p.getBlockNumber());
  }

  getTransaction(hash: string): Promise<TransactionResponse | null> {
    return this.execute('eth_getTransactionByHash', (p) => p.getTransaction(hash));
  }

  getTransactionReceipt(hash: string): Promise<TransactionReceipt | null> {
    return this.execute('eth_getTransactionReceipt', (p) => p.getTransactionReceipt(hash));
  }

  /**
   * A receipt as the node sends it, its numbers parsed and its logs left raw: ethers' formatting checksums the
   * address of every log, milliseconds on the receipt of a batch of hundreds of orders. Null when the node has none.
   */
  async getReceiptSummary(hash: string): Promise<ReceiptSummary | null> {
    const raw = (await this.send('eth_getTransactionReceipt', [hash])) as RawReceipt | null;
    if (raw === null || raw === undefined) return null;
    if (typeof raw !== 'object' || !Array.isArray(raw.logs))
      throw new TypeError(`malformed receipt of ${hash}`);
    const blockNumber = Number(raw.blockNumber);
    return {
      hash: raw.transactionHash,
      blockHash: raw.blockHash,
      blockNumber,
      status: raw.status === undefined || raw.status === null ? null : Number(raw.status),
      gasUsed: BigInt(raw.gasUsed),
      gasPrice: BigInt(raw.effectiveGasPrice ?? raw.gasPrice ?? 0),
      logs: raw.logs.map((log) => ({
        address: log.address,
        topics: log.topics,
        data: log.data,
        transactionHash: log.transactionHash,
        blockNumber,
        blockHash: raw.blockHash,
        index: Number(log.logIndex),
      })),
    };
  }

  /** A block by number, tag or hash, with transaction hashes (not bodies). */
  getBlock(tag: BlockTag): Promise<Block | null> {
    const byHash = typeof tag === 'string' && /^0x[0-9a-fA-F]{64}$/.test(tag);
    return this.execute(byHash ? 'eth_getBlockByHash' : 'eth_getBlockByNumber', (p) => p.getBlock(tag));
  }

  /** eth_call; the return data as 0x-hex. A revert throws ethers' CALL_EXCEPTION (with `data`), never retried. */
  call(tx: CallRequest, blockTag: BlockTag = 'latest'): Promise<string> {
    return this.execute('eth_call', (p) => p.call({ ...tx, blockTag }));
  }

  /** The code at an address ('0x' for an EOA; an EIP-7702 account shows its delegation designator). */
  getCode(address: string): Promise<string> {
    return this.execute('eth_getCode', (p) => p.getCode(address));
  }

  estimateGas(tx: CallRequest): Promise<bigint> {
    return this.execute('eth_estimateGas', (p) => p.estimateGas(tx));
  }

  async feeData(): Promise<ChainFeeData> {
    const [gasPrice, block, priority] = await Promise.all([
      this.execute('eth_gasPrice', async (p) => BigInt(String(await p.send('eth_gasPrice', [])))),
      this.getBlock('latest'),
      this.execute('eth_maxPriorityFeePerGas', async (p) =>
        BigInt(String(await p.send('eth_maxPriorityFeePerGas', []))),
      ).catch((err: unknown) => {
        // Legacy chains' nodes do not know the method: no priority fee, not an outage.
        if (err instanceof RpcUnavailableError) throw err;
        return null;
      }),
    ]);
    const baseFeePerGas = block?.baseFeePerGas ?? null;
    return {
      gasPrice,
      baseFeePerGas,
      maxPriorityFeePerGas: priority,
      maxFeePerGas: baseFeePerGas !== null && priority !== null ? baseFeePerGas * 2n + priority : null,
    };
  }

  /** Stops the providers (no timers or sockets left behind). */
  close(): void {
    for (const endpoint of this.endpoints) endpoint.provider.destroy();
  }

  /**
   * Runs one call with retries and failover. Attempts: retries + 1, and at least one per URL. Each failed
   * attempt moves to the next URL; a URL not yet tried in this call is tried at once, coming back to one that
   * already failed waits backoffMs · 2^k with jitter (k = waits so far).
   */
  private async execute<T>(method: string, run: (provider: JsonRpcProvider) => Promise<T>): Promise<T> {
    const count = this.endpoints.length;
    const attempts = Math.max(this.retries + 1, count);
    const start = this.current;
    const tried = new Set<number>();
    let waits = 0;
    let lastError: unknown;
    for (let attempt = 0; attempt < attempts; attempt++) {
      const index = (start + attempt) % count;
      if (tried.has(index)) await sleep(this.backoff(waits++));
      tried.add(index);
      const endpoint = this.endpoints[index]!;
      const began = performance.now();
      try {
        const result = await run(endpoint.provider);
        this.metrics?.request(this.chainId, method, 'ok', (performance.now() - began) / 1000);
        this.current = index;
        return result;
      } catch (err) {
        const kind = classifyRpcFailure(err);
        const seconds = (performance.now() - began) / 1000;
        this.metrics?.request(this.chainId, method, kind === 'timeout' ? 'timeout' : 'error', seconds);
        if (kind === 'deterministic') throw err;
        lastError = err;
        const more = attempt + 1 < attempts;
        this.log?.warn(
          { chainId: this.chainId, method, url: endpoint.label, attempt: attempt + 1, attempts, kind },
          `RPC ${method} failed${more ? ', retrying' : ''}: ${sanitizedError(err).message}`,
        );
        if (count > 1) {
          this.current = (index + 1) % count;
          if (more) this.metrics?.failover(this.chainId);
        }
      }
    }
    throw new RpcUnavailableError(this.chainId, method, attempts, lastError);
  }

  /** Equal jitter: half the doubled delay fixed, half random, so clients that failed together spread out. */
  private backoff(k: number): number {
    const delay = this.backoffMs * 2 ** k;
    return delay / 2 + Math.random() * (delay / 2);
  }
}
