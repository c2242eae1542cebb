import { mkdirSync, createWriteStream } from 'node:fs';
import path from 'node:path';
import { buildApi, type ApiInstance } from '../../api/build-api';
import { buildKeeper, type KeeperInstance } from '../../keeper/build-keeper';
import { loadConfig } from '../../shared/config/load-config';
import { createLogger, type Logger } from '../../shared/log/create-logger';
import { devnetProbes, waitUntilQuoting } from '../../embedded/wait-until-quoting';
import { loadDevnetConfig } from '../../devnet/devnet-config';
import { devnetKeys } from '../../devnet/keys';
import { startDevnet, type RunningDevnet } from '../../devnet/start-devnet';
import { interruptible, RunInterrupted } from './interruptible';
import { SimulationClock } from './sim-clock';

/** The background loops only catch up: the run steps the pool state and the keeper itself after each block. */
const BACKGROUND_POLL_MS = 1_000;
const BLOCK_FOLLOW_MS = 60_000;
/** Leases outlive several blocks whatever the block time, as they do on a real chain. */
const LEASE_BLOCKS = 10;

export interface SimulationService {
  devnet: RunningDevnet;
  api: ApiInstance;
  keeper: KeeperInstance;
  clock: SimulationClock;
  baseUrl: string;
  log: Logger;
  stop(): Promise<void>;
}

export interface SimulationServiceOptions {
  chains: readonly number[];
  blockTimeSeconds: number;
  dataDir: string;
  /** The operator's environment: fork settings, executors, keeper tuning. The run owns ports, store and clocks. */
  env: Partial<Record<string, string | undefined>>;
  progress: (line: string) => void;
  /** Aborting stops the start between its steps (and stops what it started). */
  signal?: AbortSignal;
}

/**
 * The real service, as `npm start` runs it, on a fresh data folder: anvil chains with the fixture world (or a fork
 * of DEVNET_FORK_URL), the api on any free port with the embedded store, and the keeper with the devnet's executors,
 * both on the run's chain clock. Logs go to DATA/service.log, not to the run's terminal.
 */
export async function startSimulationService(opts: SimulationServiceOptions): Promise<SimulationService> {
  mkdirSync(opts.dataDir, { recursive: true });
  const logFile = createWriteStream(path.join(opts.dataDir, 'service.log'));
  const log = createLogger(opts.env.LOG_LEVEL ?? 'info', 'simulation', logFile);
  const devnetConfig = loadDevnetConfig({
    DATA_DIR: opts.dataDir,
    DEVNET_CHAINS: opts.chains.join(','),
    DEVNET_PORTS: opts.chains.map(() => '0').join(','),
    DEVNET_ENGINE: 'anvil',
    DEVNET_BLOCK_TIME: '0',
    DEVNET_EXECUTORS: opts.env.DEVNET_EXECUTORS,
    DEVNET_FORK_URL: opts.env.DEVNET_FORK_URL,
    DEVNET_FORK_BLOCK: opts.env.DEVNET_FORK_BLOCK,
  });
  const stops: Array<() => Promise<void>> = [];
  const stop = async (): Promise<void> => {
    for (const step of stops.reverse())
      await step().catch((err: unknown) => log.error({ err }, 'stop failed'));
    stops.length = 0;
    await new Promise((resolve) => logFile.end(resolve));
  };
  try {
    const starting = startDevnet(devnetConfig, log, opts.progress);
    // Chains started while an interrupt was taken are stopped as soon as they are up.
    stops.push(async () => (await starting.catch((): undefined => undefined))?.stop());
    const devnet = await interruptible(starting, opts.signal);
    const heads = await Promise.all(devnet.handles.map((h) => h.provider.getBlock('latest')));
    const clock = new SimulationClock(Math.max(...heads.map((b) => b?.timestamp ?? 0)));
    const env = {
      ...opts.env,
      HOST: '127.0.0.1',
      PORT: '0',
      ADMIN_PORT: '0',
      KEEPER_ADMIN_PORT: '0',
      DATA_DIR: opts.dataDir,
      DATABASE_URL: '',
      KEEPER_ID: 'simulation',
      KEEPER_POLL_MS: String(BACKGROUND_POLL_MS),
      KEEPER_LEASE_MS: String(Math.max(60_000, LEASE_BLOCKS * opts.blockTimeSeconds * 1000)),
    };
    const config = loadConfig(env, { chains: devnet.chains });
    const api = await buildApi(config, { log, blockPollMs: BLOCK_FOLLOW_MS, now: clock.now });
    stops.push(() => api.close());
    const { baseUrl } = await api.listen();
    const keeper = await buildKeeper(config, {
      log,
      store: api.store,
      quoting: api.quoting,
      executorKeys: devnetKeys(devnetConfig.executorCount).executors.map((w) => w.privateKey),
      now: clock.now,
    });
    stops.push(() => keeper.stop());
    await keeper.start();
    if (opts.signal?.aborted) throw new RunInterrupted();
    await waitUntilQuoting(
      { engine: api.quoting.engine, referencePrices: api.store.referencePrices },
      devnetProbes(devnet.manifest.chains),
      (chainId) => opts.progress(`quoting: chain ${chainId}`),
    );
    return { devnet, api, keeper, clock, baseUrl, log, stop };
  } catch (err) {
    await stop();
    throw err;
  }
}
