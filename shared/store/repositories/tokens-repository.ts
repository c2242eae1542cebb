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

export class TokensRepository {
  constructor(private readonly knex: Knex) {}

  /** Replaces a chain's whole list in one transaction, keeping the given order. */
  async replaceChainTokens(chainId: number, tokens: TokenRecord[]): Promise<void> {
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
  }

  async listByChain(chainId: number): Promise<TokenRecord[]> {
    const rows = await this.knex<TokenRow>('tokens').where({ chain_id: chainId }).orderBy('position', 'asc');
    return rows.map(fromRow);
  }

  /** Looks a token up by address in any casing. */
  async find(chainId: number, address: string): Promise<TokenRecord | undefined> {
    const row = await this.knex<TokenRow>('tokens')
      .where({ chain_id: chainId, address_lower: address.toLowerCase() })
      .first();
    return row ? fromRow(row) : undefined;
  }
}
