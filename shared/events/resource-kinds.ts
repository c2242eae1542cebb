import { dcaOrderJson, strategyJson } from '../domain/dca-json';
import { limitOrderResponse } from '../domain/limit-order-json';
import { parseDiagnosis } from '../domain/diagnosis';
import {
  orderFromRow,
  strategyFromRow,
  type DcaOrderRow,
  type DcaStrategyRow,
} from '../store/repositories/dca-rows';
import { limitOrderFromRow, type LimitOrderRow } from '../store/repositories/limit-order-rows';
import type { ResourceEventType } from './event-types';

/** A stored row of any resource table, with the outbox's column. */
export type ResourceRow = Record<string, unknown> & { id: string; event_key?: string | null };

/**
 * How one resource table sends events: which key it belongs to, which of its fields an event is sent for (`keyOf`:
 * a write that leaves them as they were sends nothing) and the resource as its GET answers it.
 */
export interface ResourceKind {
  table: string;
  type: ResourceEventType;
  /** The API key the event is for; null: the resource belongs to no key (it sends nothing). */
  apiKeyOf(row: ResourceRow): string | null;
  keyOf(row: ResourceRow): string;
  render(row: ResourceRow): unknown;
}

const diagnosisCode = (text: unknown): string | null =>
  parseDiagnosis(typeof text === 'string' ? text : null)?.code ?? null;
const str = (value: unknown): string | null => (value === null || value === undefined ? null : String(value));

/** An order's evented fields: status, its transaction hash, its failure text, and its diagnosis code while pending. */
const orderKey =
  (hashColumn: string, failureColumn: string) =>
  (row: ResourceRow): string =>
    JSON.stringify([
      row.status,
      row[hashColumn],
      row[failureColumn],
      row.status === 'pending' ? diagnosisCode(row.diagnosis) : null,
    ]);

export const LIMIT_ORDER_EVENTS: ResourceKind = {
  table: 'limit_orders',
  type: 'limit_order.updated',
  apiKeyOf: (row) => str(row.api_key),
  keyOf: orderKey('tx_hash', 'reason_fail'),
  render: (row) => limitOrderResponse(limitOrderFromRow(row as unknown as LimitOrderRow)),
};

export const DCA_ORDER_EVENTS: ResourceKind = {
  table: 'dca_orders',
  type: 'dca_order.updated',
  apiKeyOf: (row) => str(row.api_key),
  keyOf: orderKey('transaction_hash', 'error_message'),
  render: (row) => dcaOrderJson(orderFromRow(row as unknown as DcaOrderRow)),
};

export const DCA_STRATEGY_EVENTS: ResourceKind = {
  table: 'dca_strategies',
  type: 'dca_strategy.updated',
  apiKeyOf: (row) => str(row.api_key),
  keyOf: (row) => JSON.stringify([row.status, str(row.min_price), str(row.max_price)]),
  render: (row) => strategyJson(strategyFromRow(row as unknown as DcaStrategyRow)),
};
