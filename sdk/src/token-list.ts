import type { TasClient } from './client';
import { TasError } from './errors';
import type { Token } from './types';

/** GET /tokens per chain, read once: tokens named by address or by symbol. */
export class TokenList {
  private readonly lists = new Map<number, Promise<Token[]>>();

  constructor(private readonly client: TasClient) {}

  /** The listed token with this address (any case) or symbol (exact, else case-insensitive, and unique). */
  async find(chainId: number, addressOrSymbol: string): Promise<Token> {
    const tokens = await this.of(chainId);
    const wanted = addressOrSymbol.trim();
    if (/^0x[0-9a-fA-F]{40}$/.test(wanted)) {
      const byAddress = tokens.find((t) => t.address.toLowerCase() === wanted.toLowerCase());
      if (byAddress) return byAddress;
      throw this.unknown(chainId, wanted);
    }
    let matches = tokens.filter((t) => t.symbol === wanted);
    if (matches.length === 0) matches = tokens.filter((t) => t.symbol.toLowerCase() === wanted.toLowerCase());
    if (matches.length === 1) return matches[0]!;
    if (matches.length === 0) throw this.unknown(chainId, wanted);
    throw new TasError({
      code: 'AMBIGUOUS_TOKEN',
      status: 0,
      message: `several tokens on chain ${chainId} have the symbol ${wanted} (${matches.map((t) => t.address).join(', ')}): name it by address`,
    });
  }

  private of(chainId: number): Promise<Token[]> {
    let list = this.lists.get(chainId);
    if (!list) {
      list = this.client.tokens(chainId);
      // A failed read is not kept: the next call asks again.
      list.catch(() => this.lists.delete(chainId));
      this.lists.set(chainId, list);
    }
    return list;
  }

  private unknown(chainId: number, wanted: string): TasError {
    return new TasError({
      code: 'UNKNOWN_TOKEN',
      status: 0,
      message: `no token ${wanted} in the token list of chain ${chainId} (GET /tokens)`,
    });
  }
}
