import { getAddress, isAddress } from 'ethers';
import { TasClient, type TasClientOptions } from '../client';
import { TasError } from '../errors';
import type { MakerWalletOptions } from '../maker';
import { TokenList } from '../token-list';
import type { Token } from '../types';
import { CLI_VERSION, type CliIo } from './io';
import { Output } from './output';
import { resolveSettings } from './settings';
import { connectWallet, walletFromEnv, type ChainWallet } from './wallet';

/** What a command runs with: the io, the output format, the profile, and lazily made clients and wallets. */
export class Context {
  readonly out: Output;
  private signed?: TasClient;
  private tokenList?: TokenList;
  private readonly cleanups: Array<() => void> = [];

  constructor(
    readonly io: CliIo,
    json: boolean,
    readonly profile: string,
  ) {
    this.out = new Output(io, json);
  }

  /** Options of every client this run makes: the io's fetch, the CLI's User-Agent, retries told on stderr. */
  clientOptions(): Omit<TasClientOptions, 'baseUrl' | 'credentials'> {
    return {
      fetch: this.io.fetch,
      userAgent: `tas-cli/${CLI_VERSION}`,
      onRetry: (event) =>
        this.out.warn(
          `retrying ${event.method} ${event.path} in ${(event.delayMs / 1000).toFixed(1)} s ` +
            `(attempt ${event.attempt} failed: ${event.error.code})`,
        ),
    };
  }

  /** A client signing with the environment's or the profile's credentials. */
  client(): TasClient {
    if (!this.signed) {
      const { baseUrl, credentials } = resolveSettings(this.io, this.profile);
      this.signed = new TasClient({ ...this.clientOptions(), baseUrl, credentials });
    }
    return this.signed;
  }

  /** A token of GET /tokens by address or symbol (the list is read once per chain). */
  token(chainId: number, addressOrSymbol: string): Promise<Token> {
    this.tokenList ??= new TokenList(this.client());
    return this.tokenList.find(chainId, addressOrSymbol);
  }

  /** The address of TAS_PRIVATE_KEY's wallet, when it is set (no RPC needed). */
  walletAddress(): string | undefined {
    return walletFromEnv(this.io)?.address;
  }

  /**
   * TAS_MAKER_WALLET: a contract wallet (a Safe, any ERC-1271 wallet) that TAS_PRIVATE_KEY's key signs orders for;
   * undefined when unset (the key's own address is the maker).
   */
  makerWallet(): MakerWalletOptions | undefined {
    const raw = this.io.env.TAS_MAKER_WALLET?.trim();
    if (!raw) return undefined;
    if (!isAddress(raw)) {
      throw new TasError({
        code: 'INVALID_MAKER_WALLET',
        status: 0,
        message: 'TAS_MAKER_WALLET is not an address',
      });
    }
    return { wallet: getAddress(raw) };
  }

  /** TAS_PRIVATE_KEY's wallet on TAS_RPC_URL, checked to serve `chainId`; closed when the command ends. */
  async wallet(chainId: number, purpose: string): Promise<ChainWallet> {
    const connected = await connectWallet(this.io, chainId, purpose);
    this.cleanups.push(() => connected.provider.destroy());
    return connected;
  }

  close(): void {
    for (const cleanup of this.cleanups.splice(0)) cleanup();
  }
}
