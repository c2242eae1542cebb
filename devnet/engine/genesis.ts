import { DEVNET_GENESIS_COINS, devnetKeys, fundedDevnetWallets } from '../keys';
import type { ChainHandle } from './devnet-chain';

export const HOST = '127.0.0.1';

/** Executor keys funded at genesis: more than the default pool of 2, so a larger pool needs no new chain. */
export const FUNDED_EXECUTOR_KEYS = 8;

/** The private keys every devnet chain funds with DEVNET_GENESIS_COINS at genesis. */
export function genesisKeys(): string[] {
  return fundedDevnetWallets(devnetKeys(FUNDED_EXECUTOR_KEYS)).map((w) => w.privateKey);
}

export const GENESIS_BALANCE_WEI = DEVNET_GENESIS_COINS * 10n ** 18n;

/** Funds the genesis keys on a chain that started empty (or forked): the same balances on every engine. */
export async function fundGenesisWallets(handle: ChainHandle): Promise<void> {
  const wallets = fundedDevnetWallets(devnetKeys(FUNDED_EXECUTOR_KEYS));
  await Promise.all(wallets.map((w) => handle.setBalance(w.address, GENESIS_BALANCE_WEI)));
}

export function portTakenError(chainId: number, port: number): Error {
  return new Error(
    `devnet chain ${chainId} cannot listen on ${HOST}:${port}: the port is taken (DEVNET_PORTS)`,
  );
}
