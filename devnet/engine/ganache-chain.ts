import { toBeHex, toQuantity } from 'ethers';
import { existsSync, mkdirSync, readdirSync } from 'node:fs';
import ganache from 'ganache';
import { ganacheOptions } from '../chain-options';
import { devnetProvider } from '../provider';
import type { ChainHandle, StartChainOptions } from './devnet-chain';
import { GENESIS_BALANCE_WEI, genesisKeys, HOST, portTakenError } from './genesis';
import { portIsFree } from '../../shared/net/free-port';

/** Starts one ganache chain in this process, serving JSON-RPC (HTTP and WebSocket) on 127.0.0.1. */
export async function startGanacheChain(opts: StartChainOptions): Promise<ChainHandle> {
  const fresh = !opts.dbPath || !existsSync(opts.dbPath) || readdirSync(opts.dbPath).length === 0;
  if (opts.dbPath) mkdirSync(opts.dbPath, { recursive: true });
  if (opts.port && !(await portIsFree(HOST, opts.port))) throw portTakenError(opts.chainId, opts.port);
  const server = ganache.server(
    ganacheOptions({
      chainId: opts.chainId,
      fundedKeys: genesisKeys(),
      balanceWei: GENESIS_BALANCE_WEI,
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
  const send = (method: string, params: unknown[]): Promise<unknown> => provider.send(method, params);
  const snapshot = async (): Promise<string> => String(await send('evm_snapshot', []));
  const revert = async (id: string): Promise<void> => {
    if ((await send('evm_revert', [id])) !== true) throw new Error(`evm_revert ${id} failed`);
  };
  let stopped: Promise<void> | undefined;
  return {
    chainId: opts.chainId,
    engine: 'ganache',
    blockTime: opts.blockTime ?? 0,
    rpcUrl,
    provider,
    fresh,
    mine: async (blocks = 1) => {
      for (let i = 0; i < blocks; i += 1) await send('evm_mine', []);
    },
    pauseMining: async () => {
      await send('miner_stop', []);
    },
    // ganache's miner_start mines the pooled transactions in one block, then mines as configured.
    resumeMining: async () => {
      await send('miner_start', []);
    },
    setNextBlockTimestamp: async (seconds) => {
      await send('evm_setTime', [seconds * 1000]);
    },
    increaseTime: async (seconds) => {
      await send('evm_increaseTime', [seconds]);
    },
    snapshot,
    revert,
    // ganache drops its whole pending pool on evm_revert; a snapshot of the present reverted at once does that.
    dropPending: async () => revert(await snapshot()),
    setBalance: async (address, wei) => {
      await send('evm_setAccountBalance', [address, toQuantity(wei)]);
    },
    setStorageAt: async (address, slot, value) => {
      await send('evm_setAccountStorageAt', [address, toBeHex(slot, 32), toBeHex(value, 32)]);
    },
    impersonate: async (address) => {
      await send('evm_addAccount', [address, '']);
      await send('personal_unlockAccount', [address, '', 0]);
    },
    stopImpersonating: async (address) => {
      await send('personal_lockAccount', [address]);
    },
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
