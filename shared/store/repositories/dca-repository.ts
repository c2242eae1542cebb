import { recordEvents } from '../../events/event-outbox';
import { DCA_ORDER_EVENTS, DCA_STRATEGY_EVENTS } from '../../events/resource-kinds';
import type { Knex } from 'knex';
import type { DcaOrder, DcaStrategy, DcaStrategyStatus, DcaStrategyWithOrders } from '../../domain/dca';
import {
  planStrategyChange,
  type DcaStrategyChange,
  type DcaStrategyChangeOutcome,
  type PriceBoundsChange,
} from '../../domain/dca-strategy-change';
import {
  orderFromRow,
  orderToRow,
  strategyFromRow,
  strategyToRow,
  type DcaOrderRow,
  type DcaStrategyRow,
} from './dca-rows';

const STRATEGIES = 'dca_strategies';
const ORDERS = 'dca_orders';

/** A change races the keeper only for the moment between its read and its write; a few rounds always settle it. */
const MAX_CHANGE_ATTEMPTS = 5;
/** Well under the bound-parameter limits of SQLite (32766) and MySQL (65535); lists are unpaginated. */
const IDS_PER_QUERY = 1000;

export interface DcaStrategyFilter {
  /** Exact, case-sensitive match on the maker address as sent. */
  accountTo?: string;
  status?: DcaStrategyStatus;
}

/** Oldest first: by slot, then by creation, with the id settling exact ties so every read agrees. */
function orderOldestFirst<T>(
  query: Knex.QueryBuilder<DcaOrderRow, T>,
  table: string,
): Knex.QueryBuilder<DcaOrderRow, T> {
  return query
    .orderBy(`${table}.slot_at`, 'asc')
    .orderBy(`${table}.iteration`, 'asc')
    .orderBy(`${table}.created_at`, 'asc')
    .orderBy(`${table}.id`, 'asc');
}

/** DCA strategies and their orders: strategies written by the api, orders created and settled by the keeper. */
export class DcaRepository {
  constructor(protected readonly knex: Knex) {}

  /** Inserts the strategy with its first `dca_strategy.updated` event. */
  async insertStrategy(strategy: DcaStrategy): Promise<void> {
    await this.knex.transaction(async (trx) => {
      await trx(STRATEGIES).insert(strategyToRow(strategy));
      await recordEvents(trx, DCA_STRATEGY_EVENTS, [strategy.id], strategy.createdAt);
    });
  }

  /** The keeper creates one order per slot; the (strategy, iteration) unique key refuses a second one. */
  async insertOrder(order: DcaOrder): Promise<void> {
    await this.knex.transaction(async (trx) => {
      await trx(ORDERS).insert(orderToRow(order));
      await recordEvents(trx, DCA_ORDER_EVENTS, [order.id], order.createdAt);
    });
  }

  async findStrategyForKey(apiKey: string, id: string): Promise<DcaStrategy | undefined> {
    const row = await this.knex<DcaStrategyRow>(STRATEGIES).where({ id, api_key: apiKey }).first();
    return row ? strategyFromRow(row) : undefined;
  }

  /**
   * Newest first, each with its orders oldest first. The orders come in one more query keyed on the listed ids
   * (not on the filter again: a strategy whose status changed between the two reads still gets its orders);
   * only a list longer than one chunk takes more.
   */
  async listStrategiesForKey(
    apiKey: string,
    filter: DcaStrategyFilter = {},
  ): Promise<DcaStrategyWithOrders[]> {
    const query = this.knex<DcaStrategyRow>(STRATEGIES).select('*').where({ api_key: apiKey });
    if (filter.accountTo !== undefined) query.andWhere({ account_to: filter.accountTo });
    if (filter.status !== undefined) query.andWhere({ status: filter.status });
    const strategyRows: DcaStrategyRow[] = await query.orderBy('created_at', 'desc').orderBy('id', 'desc');
    if (!strategyRows.length) return [];

    const byStrategy = new Map<string, DcaOrder[]>(strategyRows.map((row) => [row.id, []]));
    const ids = [...byStrategy.keys()];
    for (let i = 0; i < ids.length; i += IDS_PER_QUERY) {
      const orderRows: DcaOrderRow[] = await orderOldestFirst(
        this.knex<DcaOrderRow>(ORDERS)
          .select('*')
          .whereIn('strategy_id', ids.slice(i, i + IDS_PER_QUERY)),
        ORDERS,
      );
      for (const row of orderRows) byStrategy.get(row.strategy_id)?.push(orderFromRow(row));
    }
    return strategyRows.map((row) => ({ ...strategyFromRow(row), orders: byStrategy.get(row.id) ?? [] }));
  }

  /**
   * The key's strategies of one maker selling `tokenIn` on a chain that are active (with their orders: what the
   * maker's allowance must still cover) or that trade the pair (they carry pair signatures). Addresses compare
   * case-insensitively: they are stored as sent. Newest first.
   */
  async listOfMakerSelling(
    apiKey: string,
    pair: { chainId: number; maker: string; tokenIn: string; tokenOut: string },
  ): Promise<DcaStrategyWithOrders[]> {
    const strategyRows: DcaStrategyRow[] = await this.knex<DcaStrategyRow>(STRATEGIES)
      .select('*')
      .where({ api_key: apiKey, chain_id_from: pair.chainId })
      .andWhereRaw('lower(account_to) = ?', [pair.maker.toLowerCase()])
      .andWhereRaw('lower(token_from) = ?', [pair.tokenIn.toLowerCase()])
      .andWhere((q) =>
        q.where({ status: 'active' }).orWhereRaw('lower(token_to) = ?', [pair.tokenOut.toLowerCase()]),
      )
      .orderBy('created_at', 'desc')
      .orderBy('id', 'desc');
    const active = strategyRows.filter((row) => row.status === 'active').map((row) => row.id);
    const byStrategy = new Map<string, DcaOrder[]>(strategyRows.map((row) => [row.id, []]));
    for (let i = 0; i < active.length; i += IDS_PER_QUERY) {
      const orderRows: DcaOrderRow[] = await this.knex<DcaOrderRow>(ORDERS)
        .select('*')
        .whereIn('strategy_id', active.slice(i, i + IDS_PER_QUERY));
      for (const row of orderRows) byStrategy.get(row.strategy_id)?.push(orderFromRow(row));
    }
    return strategyRows.map((row) => ({ ...strategyFromRow(row), orders: byStrategy.get(row.id) ?? [] }));
  }

  /** Oldest first. The caller checks that the strategy belongs to the signing key. */
  async listOrdersOfStrategy(strategyId: string): Promise<DcaOrder[]> {
    const rows: DcaOrderRow[] = await orderOldestFirst(
      this.knex<DcaOrderRow>(ORDERS).select('*').where({ strategy_id: strategyId }),
      ORDERS,
    );
    return rows.map(orderFromRow);
  }

  /** Ownership is decided by the strategy's key, not the copy on the order row. */
  async findOrderForKey(apiKey: string, orderId: string): Promise<DcaOrder | undefined> {
    const row: DcaOrderRow | undefined = await this.knex(ORDERS)
      .select(`${ORDERS}.*`)
      .join(STRATEGIES, `${STRATEGIES}.id`, `${ORDERS}.strategy_id`)
      .where(`${ORDERS}.id`, orderId)
      .andWhere(`${STRATEGIES}.api_key`, apiKey)
      .first();
    return row ? orderFromRow(row) : undefined;
  }

  /** Cancels an active strategy and its pending orders; orders already executing are left to the keeper. */
  cancelStrategy(apiKey: string, id: string, now: number): Promise<DcaStrategyChangeOutcome> {
    return this.changeStrategy(apiKey, id, { cancel: true }, now);
  }

  /** Moves the price bounds of an active strategy; null clears a bound. */
  updatePriceBounds(
    apiKey: string,
    id: string,
    bounds: PriceBoundsChange,
    now: number,
  ): Promise<DcaStrategyChangeOutcome> {
    return this.changeStrategy(apiKey, id, { minPrice: bounds.minPrice, maxPrice: bounds.maxPrice }, now);
  }

  /**
   * Applies a client's change in one transaction, written only over the version it was decided on: when the
   * keeper changed the strategy in between (finished it, say), the decision is taken again on the fresh row.
   */
  async changeStrategy(
    apiKey: string,
    id: string,
    change: DcaStrategyChange,
    now: number,
  ): Promise<DcaStrategyChangeOutcome> {
    for (let attempt = 0; attempt < MAX_CHANGE_ATTEMPTS; attempt += 1) {
      const current = await this.findStrategyForKey(apiKey, id);
      if (!current) return { kind: 'not-found' };
      const plan = planStrategyChange(current, change, now);
      if (plan.kind !== 'apply') return plan;
      const written = await this.knex.transaction(async (trx) => {
        const changed = await trx(STRATEGIES)
          .where({ id, api_key: apiKey, version: current.version, status: current.status })
          .update({
            status: plan.next.status,
            min_price: plan.next.minPrice,
            max_price: plan.next.maxPrice,
            version: plan.next.version,
            updated_at: plan.next.updatedAt,
          });
        if (changed === 0) return false;
        await recordEvents(trx, DCA_STRATEGY_EVENTS, [id], now);
        if (plan.cancels) {
          const pending: Array<{ id: string }> = await trx(ORDERS)
            .select('id')
            .where({ strategy_id: id, status: 'pending' });
          await trx(ORDERS)
            .where({ strategy_id: id, status: 'pending' })
            .update({ status: 'cancelled', updated_at: now });
          await recordEvents(
            trx,
            DCA_ORDER_EVENTS,
            pending.map((row) => row.id),
            now,
          );
        }
        return true;
      });
      if (written) return { kind: 'updated', strategy: plan.next };
    }
    throw new Error(`DCA strategy ${id} kept changing while a change was being applied`);
  }
}
