import type { JsonRpcProvider } from 'ethers';
import type { ForkConfig } from '../fork-config';
import type { StrandedRescue } from './stranded-transactions';

/** The local EVM behind a devnet chain. anvil (default) runs as a child process; ganache runs in this process. */
export type DevnetEngineName = 'anvil' | 'ganache';

export const DEVNET_ENGINES: readonly DevnetEngineName[] = ['anvil', 'ganache'];

export interface StartChainOptions {
  chainId: number;
  /** Omitted: DEVNET_ENGINE of the environment, anvil when unset. */
  engine?: DevnetEngineName;
  /** 0 or omitted = any free port. */
  port?: number;
  /** Folder for the chain's state; it survives a restart on the same folder. Omitted = in memory. */
  dbPath?: string;
  /** Seconds between blocks; 0 (default) = instant mining. */
  blockTime?: number;
  fork?: ForkConfig;
  /** anvil: told when a transaction anvil stranded in its pool was re-imported (see stranded-transactions.ts). */
  onStranded?: (rescue: StrandedRescue) => void;
  /** anvil: milliseconds between checks for stranded transactions (2,000 when omitted; 0: no checks). */
  strandedCheckMs?: number;
}

/**
 * One running devnet chain and the test-chain controls every engine offers. Callers outside devnet/ use these
 * instead of engine-specific JSON-RPC methods, so none of them knows which engine runs.
 */
export interface ChainHandle {
  chainId: number;
  engine: DevnetEngineName;
  rpcUrl: string;
  provider: JsonRpcProvider;
  /** Seconds between blocks; 0 = instant mining (a block per transaction). */
  blockTime: number;
  /** Whether the chain started from an empty state (false: state loaded from dbPath). */
  fresh: boolean;
  /** Mines `blocks` blocks now (1 by default), with whatever is pending. */
  mine(blocks?: number): Promise<void>;
  /** Stops producing blocks: transactions wait in the pool until mine() or resumeMining(). */
  pauseMining(): Promise<void>;
  /** Mines what waits in the pool in one block, then mines as configured again (instant or interval). */
  resumeMining(): Promise<void>;
  /** Timestamp (seconds) of the next block; later blocks follow from it. */
  setNextBlockTimestamp(seconds: number): Promise<void>;
  /** Moves the chain's clock forward by `seconds` for the next blocks. */
  increaseTime(seconds: number): Promise<void>;
  /** A snapshot of the current state; revert() consumes it. */
  snapshot(): Promise<string>;
  revert(snapshotId: string): Promise<void>;
  /** Forgets every pending transaction, as a node that lost its pool would. */
  dropPending(): Promise<void>;
  setBalance(address: string, wei: bigint): Promise<void>;
  setStorageAt(address: string, slot: bigint, value: bigint): Promise<void>;
  /** Lets eth_sendTransaction send from `address` without its key. */
  impersonate(address: string): Promise<void>;
  stopImpersonating(address: string): Promise<void>;
  /** Stops the chain, persisting its state when it has a dbPath. Idempotent. */
  stop(): Promise<void>;
}
