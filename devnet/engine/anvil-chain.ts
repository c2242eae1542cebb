import { toBeHex, toQuantity } from 'ethers';
import { existsSync, mkdirSync } from 'node:fs';
import path from 'node:path';
import { devnetProvider } from '../provider';
import { spawnAnvil, PortTakenError, type AnvilProcess } from './anvil-process';
import type { ChainHandle, StartChainOptions } from './devnet-chain';
import { freePort, portIsFree } from '../../shared/net/free-port';
import { fundGenesisWallets, portTakenError, HOST } from './genesis';
import { watchStrandedTransactions } from './stranded-transactions';

/** anvil keeps its state in one JSON file, loaded at start and dumped when it stops. */
export const ANVIL_STATE_FILE = 'anvil-state.json';

/** States of recent blocks anvil keeps (in memory) for calls at a past block. */
const KEPT_STATES = 64;

function anvilArgs(opts: StartChainOptions, port: number, stateFile: string | undefined): string[] {
  const args = [
    '--host',
    HOST,
    '--port',
    String(port),
    '--chain-id',
    String(opts.chainId),
    // The genesis keys are funded over RPC (fundGenesisWallets): our roles use several derivation paths.
    '--accounts',
    '0',
    // Uniswap V3's NonfungiblePositionManager is above the 24 KB limit of EIP-170.
    '--disable-code-size-limit',
    // Recent states stay in memory for calls at recent blocks and reorg tests; none is written to disk.
    // Without it anvil writes old states under ~/.foundry/anvil/tmp without bound on a long run.
    '--prune-history',
    String(KEPT_STATES),
    '--quiet',
  ];
  if (opts.blockTime) args.push('--block-time', String(opts.blockTime));
  if (stateFile) args.push('--state', stateFile);
  if (opts.fork) {
    args.push('--fork-url', opts.fork.url);
    if (opts.fork.blockNumber !== undefined) args.push('--fork-block-number', String(opts.fork.blockNumber));
    // anvil caches a fork's RPC answers under ~/.foundry/cache/rpc; a local chain's answers are never reused.
    if (['127.0.0.1', 'localhost', '[::1]'].includes(new URL(opts.fork.url).hostname))
      args.push('--no-storage-caching');
  }
  return args;
}

/** Starts one anvil chain as a child process on 127.0.0.1; with a dbPath its state survives a restart. */
export async function startAnvilChain(opts: StartChainOptions): Promise<ChainHandle> {
  const blockTime = opts.blockTime ?? 0;
  if (!Number.isFinite(blockTime) || blockTime < 0)
    throw new Error(`blockTime must be >= 0, got ${blockTime}`);
  let stateFile: string | undefined;
  if (opts.dbPath) {
    mkdirSync(opts.dbPath, { recursive: true });
    stateFile = path.join(opts.dbPath, ANVIL_STATE_FILE);
  }
  const fresh = !stateFile || !existsSync(stateFile);
  let anvil: AnvilProcess | undefined;
  let port = opts.port ?? 0;
  // A port picked by us can be taken by someone else before anvil binds it: pick again, a few times.
  for (let attempt = 0; !anvil; attempt += 1) {
    if (opts.port) {
      if (!(await portIsFree(HOST, opts.port))) throw portTakenError(opts.chainId, opts.port);
    } else port = await freePort(HOST);
    try {
      anvil = await spawnAnvil(anvilArgs(opts, port, stateFile), `http://${HOST}:${port}`);
    } catch (err) {
      if (!(err instanceof PortTakenError)) throw err;
      if (opts.port || attempt >= 3) throw portTakenError(opts.chainId, port);
    }
  }
  const rpcUrl = `http://${HOST}:${port}`;
  const provider = devnetProvider(rpcUrl, opts.chainId);
  const send = (method: string, params: unknown[]): Promise<unknown> => provider.send(method, params);
  const process_ = anvil;
  const stopWatching =
    opts.strandedCheckMs === 0
      ? () => undefined
      : watchStrandedTransactions(send, (rescue) => opts.onStranded?.(rescue), opts.strandedCheckMs);
  let stopped: Promise<void> | undefined;
  const handle: ChainHandle = {
    chainId: opts.chainId,
    engine: 'anvil',
    blockTime,
    rpcUrl,
    provider,
    fresh,
    mine: async (blocks = 1) => {
      await send('anvil_mine', [toQuantity(blocks)]);
    },
    pauseMining: async () => {
      await send('evm_setAutomine', [false]);
      await send('evm_setIntervalMining', [0]);
    },
    resumeMining: async () => {
      await send('evm_mine', []);
      if (blockTime > 0) await send('evm_setIntervalMining', [blockTime]);
      else await send('evm_setAutomine', [true]);
    },
    setNextBlockTimestamp: async (seconds) => {
      await send('evm_setNextBlockTimestamp', [seconds]);
    },
    increaseTime: async (seconds) => {
      await send('evm_increaseTime', [seconds]);
    },
    snapshot: async () => String(await send('evm_snapshot', [])),
    revert: async (id) => {
      if ((await send('evm_revert', [id])) !== true) throw new Error(`evm_revert ${id} failed`);
    },
    dropPending: async () => {
      await send('anvil_dropAllTransactions', []);
    },
    setBalance: async (address, wei) => {
      await send('anvil_setBalance', [address, toQuantity(wei)]);
    },
    setStorageAt: async (address, slot, value) => {
      await send('anvil_setStorageAt', [address, toBeHex(slot, 32), toBeHex(value, 32)]);
    },
    impersonate: async (address) => {
      await send('anvil_impersonateAccount', [address]);
    },
    stopImpersonating: async (address) => {
      await send('anvil_stopImpersonatingAccount', [address]);
    },
    stop: () => {
      stopped ??= (async () => {
        stopWatching();
        provider.destroy();
        await process_.stop();
      })();
      return stopped;
    },
  };
  try {
    if (fresh) await fundGenesisWallets(handle);
  } catch (err) {
    await handle.stop();
    throw err;
  }
  return handle;
}
