import { mkdirSync } from 'node:fs';
import ganache from 'ganache';
import type { JsonRpcProvider } from 'ethers';
import { ganacheOptions } from './chain-options';
import type { ForkConfig } from './fork-config';
import { DEVNET_GENESIS_COINS, devnetKeys, fundedDevnetWallets } from './keys';
import { devnetProvider } from './provider';

export interface ChainHandle {
  chainId: number;
  rpcUrl: string;
  provider: JsonRpcProvider;
  stop(): Promise<void>;
}

export interface StartChainOptions {
  chainId: number;
  /** 0 or omitted = any free port. */
  port?: number;
  /** ganache's database folder; the chain state survives a restart on the same folder. Omitted = in memory. */
  dbPath?: string;
  /** Seconds between blocks; 0 (default) = instant mining. */
  blockTime?: number;
  fork?: ForkConfig;
}

const HOST = '127.0.0.1';
/** Executor keys funded at genesis: more than the default pool of 2, so a larger pool needs no new chain. */
export const FUNDED_EXECUTOR_KEYS = 8;

/** Starts one ganache chain in this process, serving JSON-RPC (HTTP and WebSocket) on 127.0.0.1. */
export async function startChain(opts: StartChainOptions): Promise<ChainHandle> {
  if (opts.dbPath) mkdirSync(opts.dbPath, { recursive: true });
  const server = ganache.server(
    ganacheOptions({
      chainId: opts.chainId,
      fundedKeys: fundedDevnetWallets(devnetKeys(FUNDED_EXECUTOR_KEYS)).map((w) => w.privateKey),
      balanceWei: DEVNET_GENESIS_COINS * 10n ** 18n,
      dbPath: opts.dbPath,
      blockTime: opts.blockTime,
      fork: opts.fork,
    }),
  );
  try {
    await server.listen(opts.port ?? 0, HOST);
  } catch (err) {
    await server.close().catch(() => undefined);
    throw new Error(
      `devnet chain ${opts.chainId} cannot listen on ${HOST}:${opts.port ?? 0}: ${(err as Error).message}`,
    );
  }
  const rpcUrl = `http://${HOST}:${server.address().port}`;
  const provider = devnetProvider(rpcUrl, opts.chainId);
  let stopped: Promise<void> | undefined;
  return {
    chainId: opts.chainId,
    rpcUrl,
    provider,
    // Idempotent: a second stop waits for the first instead of closing a closed server.
    stop: () => {
      stopped ??= (async () => {
        provider.destroy();
        await server.close();
      })();
      return stopped;
    },
  };
}
