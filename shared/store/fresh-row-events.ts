import { newEventId } from '../events/event-outbox';
import type { EventBody } from '../events/event-types';
import type { ResourceKind, ResourceRow } from '../events/resource-kinds';

/** An `events` row as recordEvents inserts it. */
export interface EventInsert {
  id: string;
  api_key: string;
  webhook_id: null;
  type: string;
  resource_id: string;
  body: string;
  created_at: number;
}

/**
 * recordEvents for a row being inserted, from the row itself rather than read back after the insert: the event the
 * new row sends and the `event_key` mark to insert it with. The same decisions and the same body as recordEvents
 * (a row of no key sends nothing and keeps no mark; otherwise one event of the row's evented fields), for rows whose
 * values are exactly what the store hands back (the insert's own values: strings, numbers and nulls).
 */
export function freshRowEvent(
  kind: ResourceKind,
  row: ResourceRow,
  nowMs: number,
): { event: EventInsert | undefined; eventKey: string | null } {
  const apiKey = kind.apiKeyOf(row);
  if (!apiKey) return { event: undefined, eventKey: null };
  const id = newEventId();
  const body: EventBody = {
    id,
    type: kind.type,
    createdAt: new Date(nowMs).toISOString(),
    data: kind.render(row),
  };
  return {
    event: {
      id,
      api_key: apiKey,
      webhook_id: null,
      type: kind.type,
      resource_id: String(row.id),
      body: JSON.stringify(body),
      created_at: nowMs,
    },
    eventKey: kind.keyOf(row),
  };
}
