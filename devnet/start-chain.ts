import { startAnvilChain } from './engine/anvil-chain';
import { loadDevnetConfig } from './devnet-config';
import type { ChainHandle, DevnetEngineName, StartChainOptions } from './engine/devnet-chain';
import { startGanacheChain } from './engine/ganache-chain';

export type { ChainHandle, DevnetEngineName, StartChainOptions } from './engine/devnet-chain';

/** DEVNET_ENGINE of the environment (anvil when unset), validated as the devnet's other settings are. */
export function engineFromEnv(
  env: Partial<Record<string, string | undefined>> = process.env,
): DevnetEngineName {
  return loadDevnetConfig({ DEVNET_ENGINE: env.DEVNET_ENGINE }).engine;
}

/** Starts one devnet chain on the chosen engine (DEVNET_ENGINE by default). */
export function startChain(opts: StartChainOptions): Promise<ChainHandle> {
  const engine = opts.engine ?? engineFromEnv();
  return engine === 'ganache' ? startGanacheChain(opts) : startAnvilChain(opts);
}
