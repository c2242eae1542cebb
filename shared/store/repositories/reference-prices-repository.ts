import type { Knex } from 'knex';

export interface ReferencePrice {
  chainId: number;
  baseSymbol: string;
  quoteSymbol: string;
  /** Units of the quote token per 1 base token, as an exact decimal string. */
  price: string;
  blockNumber: number | null;
  updatedAt: number;
}

interface ReferencePriceRow {
  chain_id: number;
  base_symbol: string;
  quote_symbol: string;
  price: string;
  block_number: number | string | null;
  updated_at: number | string;
}

function fromRow(row: ReferencePriceRow): ReferencePrice {
  return {
    chainId: Number(row.chain_id),
    baseSymbol: row.base_symbol,
    quoteSymbol: row.quote_symbol,
    price: row.price,
    blockNumber: row.block_number === null ? null : Number(row.block_number),
    updatedAt: Number(row.updated_at),
  };
}

/** Reference prices per chain and symbol pair; the keeper publishes them, the api's limit-order check reads them. */
export class ReferencePricesRepository {
  /**
   * Pairs known to have a price, for `hasPair`. Reference prices are upserted and never deleted, so a pair once
   * found keeps its price (its value may change; `hasPair` does not answer that); a pair not found is asked again.
   */
  private readonly priced = new Set<string>();

  constructor(private readonly knex: Knex) {}

  async upsert(prices: ReferencePrice[]): Promise<void> {
    if (!prices.length) return;
    await this.knex<ReferencePriceRow>('reference_prices')
      .insert(
        prices.map((p) => ({
          chain_id: p.chainId,
          base_symbol: p.baseSymbol,
          quote_symbol: p.quoteSymbol,
          price: p.price,
          block_number: p.blockNumber,
          updated_at: p.updatedAt,
        })),
      )
      .onConflict(['chain_id', 'base_symbol', 'quote_symbol'])
      .merge(['price', 'block_number', 'updated_at']);
  }

  /** Whether a price of the pair was published in either direction (as `findPair` finds it). */
  async hasPair(chainId: number, a: string, b: string): Promise<boolean> {
    const key = `${chainId}\u0000${a}\u0000${b}`;
    if (this.priced.has(key)) return true;
    if (!(await this.findPair(chainId, a, b))) return false;
    this.priced.add(key);
    return true;
  }

  /** The price of `base` in `quote`, published in either direction (the inverse direction is not inverted here). */
  async findPair(chainId: number, a: string, b: string): Promise<ReferencePrice | undefined> {
    const rows = await this.knex<ReferencePriceRow>('reference_prices')
      .where({ chain_id: chainId })
      .andWhere((q) =>
        q.where({ base_symbol: a, quote_symbol: b }).orWhere({ base_symbol: b, quote_symbol: a }),
      );
    const direct = rows.find((r) => r.base_symbol === a && r.quote_symbol === b) ?? rows[0];
    return direct ? fromRow(direct) : undefined;
  }
}
