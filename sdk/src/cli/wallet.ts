import { JsonRpcProvider, Network, Wallet } from 'ethers';
import { TasError } from '../errors';
import type { CliIo } from './io';

const PRIVATE_KEY = /^(0x)?[0-9a-fA-F]{64}$/;

const local = (code: string, message: string): TasError => new TasError({ code, status: 0, message });

/**
 * The wallet of TAS_PRIVATE_KEY (never a flag: a key typed on the command line stays in the shell history), or
 * undefined when it is unset. No message ever contains the key.
 */
export function walletFromEnv(io: CliIo): Wallet | undefined {
  const key = io.env.TAS_PRIVATE_KEY?.trim();
  if (!key) return undefined;
  if (!PRIVATE_KEY.test(key)) {
    throw local('INVALID_PRIVATE_KEY', 'TAS_PRIVATE_KEY is not a private key (32 bytes in hex, 0x optional)');
  }
  try {
    return new Wallet(key.startsWith('0x') ? key : `0x${key}`);
  } catch {
    // ethers' own message may quote the value.
    throw local('INVALID_PRIVATE_KEY', 'TAS_PRIVATE_KEY is not a valid secp256k1 private key');
  }
}

export interface ChainWallet {
  wallet: Wallet;
  provider: JsonRpcProvider;
}

function shortMessage(err: unknown): string {
  if (typeof err !== 'object' || err === null) return String(err);
  const { shortMessage: short, message } = err as { shortMessage?: unknown; message?: unknown };
  return typeof short === 'string' ? short : typeof message === 'string' ? message : String(err);
}

/**
 * TAS_PRIVATE_KEY's wallet on TAS_RPC_URL, after checking that the node serves `chainId` (a transaction signed
 * for one chain must not go to another). The caller destroys the provider. The URL is never printed: it may
 * carry a provider's API key.
 */
export async function connectWallet(io: CliIo, chainId: number, purpose: string): Promise<ChainWallet> {
  const wallet = walletFromEnv(io);
  const rpcUrl = io.env.TAS_RPC_URL?.trim();
  if (!wallet || !rpcUrl) {
    throw local(
      'MISSING_WALLET',
      `${purpose} needs the maker's wallet: set TAS_PRIVATE_KEY and TAS_RPC_URL (a node of chain ${chainId})`,
    );
  }
  const network = Network.from(chainId);
  // A static network: ethers then never retries network detection forever against a dead URL. No request cache:
  // ethers would answer a second nonce lookup within 250 ms from the first, and two approvals would share a nonce.
  const provider = new JsonRpcProvider(rpcUrl, network, {
    staticNetwork: network,
    cacheTimeout: -1,
    pollingInterval: 1000,
  });
  let served: bigint;
  try {
    served = BigInt(String(await provider.send('eth_chainId', [])));
  } catch (err) {
    provider.destroy();
    throw local('RPC_ERROR', `TAS_RPC_URL did not answer eth_chainId: ${shortMessage(err)}`);
  }
  if (served !== BigInt(chainId)) {
    provider.destroy();
    throw local('WRONG_CHAIN', `TAS_RPC_URL serves chain ${served}, not chain ${chainId} (--chain)`);
  }
  return { wallet: wallet.connect(provider), provider };
}
