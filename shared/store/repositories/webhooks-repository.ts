import type { Knex } from 'knex';
import type { EventType } from '../../events/event-types';

const WEBHOOKS = 'webhooks';
const DELIVERIES = 'webhook_deliveries';

type Numeric = number | string;

interface WebhookRow {
  id: string;
  api_key: string;
  url: string;
  events: string;
  secret_sealed: string;
  created_at: Numeric;
  deleted_at: Numeric | null;
  cursor: Numeric;
  attempt: Numeric;
  failing_since: Numeric | null;
  next_attempt_at: Numeric;
  lease_owner: string | null;
  lease_expires_at: Numeric | null;
}

export interface Webhook {
  id: string;
  apiKey: string;
  url: string;
  events: EventType[];
  /** The signing secret, sealed under the master key with the webhook id as associated data. */
  secretSealed: string;
  createdAt: number;
  /** The last delivery position done with (delivered, another type, or given up). */
  cursor: number;
  /** Failed attempts at the next event, and since when it has been failing. */
  attempt: number;
  failingSince: number | null;
  nextAttemptAt: number;
}

export interface WebhookDelivery {
  id: number;
  eventId: string;
  eventType: string;
  attempt: number;
  /** The receiver's HTTP status; null when no response came (refused, timed out, not allowed). */
  statusCode: number | null;
  error: string | null;
  durationMs: number;
  createdAt: number;
}

export type NewWebhookDelivery = Omit<WebhookDelivery, 'id'>;

function parseEvents(text: string): EventType[] {
  try {
    const parsed: unknown = JSON.parse(text);
    return Array.isArray(parsed) ? (parsed.map(String) as EventType[]) : [];
  } catch {
    return [];
  }
}

const nullableNumber = (value: Numeric | null): number | null => (value === null ? null : Number(value));

function fromRow(row: WebhookRow): Webhook {
  return {
    id: row.id,
    apiKey: row.api_key,
    url: row.url,
    events: parseEvents(row.events),
    secretSealed: row.secret_sealed,
    createdAt: Number(row.created_at),
    cursor: Number(row.cursor),
    attempt: Number(row.attempt),
    failingSince: nullableNumber(row.failing_since),
    nextAttemptAt: Number(row.next_attempt_at),
  };
}

/** Webhooks of each API key, their delivery position and lease, and the log of recent attempts. */
export class WebhooksRepository {
  constructor(private readonly knex: Knex) {}

  /**
   * Inserts the webhook unless the key has `max` already; the count and the insert are one transaction on the
   * key's rows, so two concurrent creations cannot both pass the limit. Resolves false at the limit.
   */
  async insertWithin(webhook: Webhook, max: number): Promise<boolean> {
    return this.knex.transaction(async (trx) => {
      // A write first (it matches nothing): SQLite's write lock from the first statement, so the count below cannot
      // go stale before the insert.
      await trx(WEBHOOKS).where('api_key', webhook.apiKey).andWhereRaw('1 = 0').update({ deleted_at: null });
      const live: Array<{ id: string }> = await trx(WEBHOOKS)
        .select('id')
        .where('api_key', webhook.apiKey)
        .whereNull('deleted_at')
        .forUpdate();
      if (live.length >= max) return false;
      await trx(WEBHOOKS).insert({
        id: webhook.id,
        api_key: webhook.apiKey,
        url: webhook.url,
        events: JSON.stringify(webhook.events),
        secret_sealed: webhook.secretSealed,
        created_at: webhook.createdAt,
        deleted_at: null,
        cursor: webhook.cursor,
        attempt: 0,
        failing_since: null,
        next_attempt_at: 0,
      });
      return true;
    });
  }

  async listForKey(apiKey: string): Promise<Webhook[]> {
    const rows: WebhookRow[] = await this.knex(WEBHOOKS)
      .where('api_key', apiKey)
      .whereNull('deleted_at')
      .orderBy('created_at', 'asc')
      .orderBy('id', 'asc');
    return rows.map(fromRow);
  }

  async findForKey(apiKey: string, id: string): Promise<Webhook | undefined> {
    const row: WebhookRow | undefined = await this.knex(WEBHOOKS)
      .where({ id, api_key: apiKey })
      .whereNull('deleted_at')
      .first();
    return row ? fromRow(row) : undefined;
  }

  /** Resolves false when the key has no such live webhook. Its deliveries stop at once. */
  async deleteForKey(apiKey: string, id: string, nowMs: number): Promise<boolean> {
    const changed = await this.knex(WEBHOOKS)
      .where({ id, api_key: apiKey })
      .whereNull('deleted_at')
      .update({ deleted_at: nowMs });
    return changed > 0;
  }

  /**
   * Live webhooks due an attempt with events waiting after their cursor, whose lease is free or ran out: the
   * deliverer's candidates, oldest due first.
   */
  async listDue(nowMs: number, limit: number): Promise<Webhook[]> {
    const rows: WebhookRow[] = await this.knex(`${WEBHOOKS} as w`)
      .select('w.*')
      .whereNull('w.deleted_at')
      .andWhere('w.next_attempt_at', '<=', nowMs)
      .andWhere((q) => q.whereNull('w.lease_expires_at').orWhere('w.lease_expires_at', '<', nowMs))
      .whereExists((q) =>
        q
          .select(this.knex.raw('1'))
          .from('events as e')
          .whereRaw('e.api_key = w.api_key')
          .andWhereRaw('e.published_seq > w.cursor')
          .andWhere((inner) => inner.whereNull('e.webhook_id').orWhereRaw('e.webhook_id = w.id')),
      )
      .orderBy('w.next_attempt_at', 'asc')
      .limit(limit);
    return rows.map(fromRow);
  }

  /** Takes the delivery lease (free or run out); resolves the webhook as leased, or undefined if another holds it. */
  async claim(id: string, owner: string, leaseMs: number, nowMs: number): Promise<Webhook | undefined> {
    const changed = await this.knex(WEBHOOKS)
      .where('id', id)
      .whereNull('deleted_at')
      .andWhere((q) => q.whereNull('lease_expires_at').orWhere('lease_expires_at', '<', nowMs))
      .update({ lease_owner: owner, lease_expires_at: nowMs + leaseMs });
    if (!changed) return undefined;
    const row: WebhookRow | undefined = await this.knex(WEBHOOKS).where({ id, lease_owner: owner }).first();
    return row ? fromRow(row) : undefined;
  }

  /**
   * Done with the events up to `cursor` (delivered, passed over or given up), under the lease, which it renews:
   * resolves false when the lease was lost or the webhook deleted (the caller stops).
   */
  async advance(id: string, owner: string, cursor: number, leaseMs: number, nowMs: number): Promise<boolean> {
    const changed = await this.knex(WEBHOOKS)
      .where({ id, lease_owner: owner })
      .whereNull('deleted_at')
      .update({
        cursor,
        attempt: 0,
        failing_since: null,
        next_attempt_at: 0,
        lease_expires_at: nowMs + leaseMs,
      });
    return changed > 0;
  }

  /**
   * A failed attempt at the event after `cursor` (the progress made before it is kept): retried at `nextAttemptAt`.
   * Releases the lease.
   */
  async recordFailure(
    id: string,
    owner: string,
    failure: { cursor: number; attempt: number; failingSince: number; nextAttemptAt: number },
  ): Promise<boolean> {
    const changed = await this.knex(WEBHOOKS).where({ id, lease_owner: owner }).update({
      cursor: failure.cursor,
      attempt: failure.attempt,
      failing_since: failure.failingSince,
      next_attempt_at: failure.nextAttemptAt,
      lease_owner: null,
      lease_expires_at: null,
    });
    return changed > 0;
  }

  async release(id: string, owner: string): Promise<void> {
    await this.knex(WEBHOOKS)
      .where({ id, lease_owner: owner })
      .update({ lease_owner: null, lease_expires_at: null });
  }

  /** Records attempts, oldest first (one statement: a batch's attempts are written together). */
  async logDeliveries(webhookId: string, deliveries: readonly NewWebhookDelivery[]): Promise<void> {
    if (!deliveries.length) return;
    await this.knex(DELIVERIES).insert(
      deliveries.map((delivery) => ({
        webhook_id: webhookId,
        event_id: delivery.eventId,
        event_type: delivery.eventType,
        attempt: delivery.attempt,
        status_code: delivery.statusCode,
        error: delivery.error === null ? null : delivery.error.slice(0, 300),
        duration_ms: delivery.durationMs,
        created_at: delivery.createdAt,
      })),
    );
  }

  /** The webhook's most recent attempts, newest first. */
  async listDeliveries(webhookId: string, limit: number): Promise<WebhookDelivery[]> {
    const rows: Array<Record<string, Numeric | string | null>> = await this.knex(DELIVERIES)
      .where('webhook_id', webhookId)
      .orderBy('id', 'desc')
      .limit(limit);
    return rows.map((row) => ({
      id: Number(row.id),
      eventId: String(row.event_id),
      eventType: String(row.event_type),
      attempt: Number(row.attempt),
      statusCode: row.status_code === null ? null : Number(row.status_code),
      error: row.error === null ? null : String(row.error),
      durationMs: Number(row.duration_ms),
      createdAt: Number(row.created_at),
    }));
  }

  async pruneDeliveries(beforeMs: number): Promise<number> {
    return this.knex(DELIVERIES).where('created_at', '<', beforeMs).delete();
  }
}
