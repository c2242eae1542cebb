import type { Knex } from 'knex';

export interface TokenRecord {
  chainId: number;
  address: string;
  symbol: string;
  name: string;
  decimals: number;
  logoURI?: string;
  /** True for the chain's native coin, listed under the 0xeeee… pseudo-address. */
  native: boolean;
}

interface TokenRow {
  chain_id: number;
  address_lower: string;
  address: string;
  symbol: string;
  name: string;
  decimals: number;
  logo_uri: string | null;
  native: number | boolean;
  position: number;
}

function fromRow(row: TokenRow): TokenRecord {
  return {
    chainId: Number(row.chain_id),
    address: row.address,
    symbol: row.symbol,
    name: row.name,
    decimals: Number(row.decimals),
    ...(row.logo_uri ? { logoURI: row.logo_uri } : {}),
    native: Boolean(row.native),
  };
}

/**
 * How long a chain's token list read from the store is trusted for `find`. The lists are written at an api's
 * start-up only; this process's own writes drop its copy at once, another process's are seen within this.
 */
export const TOKEN_CACHE_TTL_MS = 5_000;

interface ChainTokens {
  byAddress: Map<string, TokenRecord>;
  loadedAt: number;
}

export class TokensRepository {
  /** Each chain's list by lower-case address, for `find` (every quote and order looks up two or three tokens). */
  private readonly cache = new Map<number, Promise<ChainTokens>>();

  constructor(
    private readonly knex: Knex,
    private readonly now: () => number = Date.now,
  ) {}

  /** Replaces a chain's whole list in one transaction, keeping the given order. */
  async replaceChainTokens(chainId: number, tokens: TokenRecord[]): Promise<void> {
    this.cache.delete(chainId);
    await this.knex.transaction(async (trx) => {
      await trx('tokens').where({ chain_id: chainId }).delete();
      const rows: TokenRow[] = tokens.map((t, position) => ({
        chain_id: chainId,
        address_lower: t.address.toLowerCase(),
        address: t.address,
        symbol: t.symbol,
        name: t.name,
        decimals: t.decimals,
        logo_uri: t.logoURI ?? null,
        native: t.native,
        position,
      }));
      if (rows.length) await trx.batchInsert('tokens', rows, 200);
    });
    // A read that started during the write may hold the old list.
    this.cache.delete(chainId);
  }

  async listByChain(chainId: number): Promise<TokenRecord[]> {
    const rows = await this.knex<TokenRow>('tokens').where({ chain_id: chainId }).orderBy('position', 'asc');
    return rows.map(fromRow);
  }

  /** Looks a token up by address in any casing (from the chain's list, read at most every TOKEN_CACHE_TTL_MS). */
  async find(chainId: number, address: string): Promise<TokenRecord | undefined> {
    const now = this.now();
    let entry = this.cache.get(chainId);
    if (entry) {
      const tokens = await entry;
      if (now - tokens.loadedAt < TOKEN_CACHE_TTL_MS) return tokens.byAddress.get(address.toLowerCase());
      if (this.cache.get(chainId) === entry) this.cache.delete(chainId);
    }
    entry = this.cache.get(chainId);
    if (!entry) {
      const load = this.listByChain(chainId).then((list) => ({
        byAddress: new Map(list.map((t) => [t.address.toLowerCase(), t])),
        loadedAt: now,
      }));
      entry = load;
      this.cache.set(chainId, load);
      // A failed read is not remembered: the next call asks the store again.
      load.catch(() => {
        if (this.cache.get(chainId) === load) this.cache.delete(chainId);
      });
    }
    return (await entry).byAddress.get(address.toLowerCase());
  }
}
