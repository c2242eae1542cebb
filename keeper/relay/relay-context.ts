import type { ChainClient } from '../../shared/chain/chain-client';
import type { Logger } from '../../shared/log/create-logger';
import type { RootBundlesRepository } from '../../shared/store/repositories/root-bundles-repository';
import type { TransfersRepository } from '../../shared/store/repositories/transfers-repository';
import type { KeeperMetrics } from '../keeper-metrics';

/** Every chain's RPC client: the relay reads origins from destinations and destinations from origins. */
export interface RelayClients {
  find(chainId: number): ChainClient | undefined;
}

/** What every relay stage of a chain shares. */
export interface RelayContext {
  /** The chain this stage runs on. */
  chainId: number;
  clients: RelayClients;
  transfers: TransfersRepository;
  rootBundles: RootBundlesRepository;
  metrics: KeeperMetrics;
  /** This keeper's lease owner id. */
  owner: string;
  leaseMs: number;
  log: Logger;
  now: () => number;
}

/** Looks up a chain's client; a chain the keeper does not serve is a configuration error for that transfer only. */
export function clientOf(clients: RelayClients, chainId: number): ChainClient {
  const client = clients.find(chainId);
  if (!client) throw new Error(`chain ${chainId} is not served by this keeper`);
  return client;
}

/** Back-off of a transfer's next attempt: 2 s doubling per attempt, at most a minute. */
export function retryDelayMs(attempts: number): number {
  return Math.min(60_000, 2_000 * 2 ** Math.min(attempts, 10));
}

/** Per-chain values read at most once per tick (origin heads, block times). */
export class TickMemo<T> {
  private readonly values = new Map<number, Promise<T>>();

  constructor(private readonly read: (chainId: number) => Promise<T>) {}

  get(chainId: number): Promise<T> {
    let value = this.values.get(chainId);
    if (!value) {
      value = this.read(chainId);
      this.values.set(chainId, value);
    }
    return value;
  }
}

/**
 * Runs `work` for each item, each on its own: a throw is logged and counted against the stage, and the others go
 * on (one transfer's bad RPC answer never holds the rest).
 */
export async function eachOnItsOwn<T>(
  items: readonly T[],
  idOf: (item: T) => string,
  work: (item: T) => Promise<void>,
  onError: (id: string, err: unknown) => void,
): Promise<void> {
  for (const item of items) {
    try {
      await work(item);
    } catch (err) {
      onError(idOf(item), err);
    }
  }
}
