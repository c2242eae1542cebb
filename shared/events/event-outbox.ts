import { randomUUID } from 'node:crypto';
import type { Knex } from 'knex';
import type { EventBody, EventType, PublishedEvent } from './event-types';
import type { ResourceKind, ResourceRow } from './resource-kinds';

const EVENTS = 'events';
const PUBLISHER = 'event_publisher';
/** Bound parameters per statement stay far under SQLite's and MySQL's limits. */
const IDS_PER_QUERY = 500;
/** Inserted rows per statement: each event row binds eight values. */
const EVENTS_PER_INSERT = 100;
/** Rows marked per statement: each binds three values. */
const MARKS_PER_UPDATE = 200;

type Numeric = number | string;
interface EventRow {
  seq: Numeric;
  id: string;
  api_key: string;
  webhook_id: string | null;
  type: string;
  resource_id: string;
  body: string;
  created_at: Numeric;
  published_seq: Numeric | null;
}

export const newEventId = (): string => `evt_${randomUUID().replace(/-/g, '')}`;

function fromRow(row: EventRow): PublishedEvent {
  return {
    id: row.id,
    apiKey: row.api_key,
    webhookId: row.webhook_id,
    type: row.type as EventType,
    resourceId: row.resource_id,
    body: row.body,
    createdAt: Number(row.created_at),
    publishedSeq: Number(row.published_seq),
  };
}

function chunks<T>(items: readonly T[], size: number): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size));
  return out;
}

/**
 * Sends an event for each of `ids` whose evented fields changed since its last event: reads the rows as this
 * transaction wrote them (the caller's row locks keep one resource's events in the order of its changes) and
 * marks each with what was sent. Run after the write, in its transaction.
 */
export async function recordEvents(
  trx: Knex.Transaction,
  kind: ResourceKind,
  ids: readonly string[],
  nowMs: number,
): Promise<number> {
  if (!ids.length) return 0;
  const events: Array<Omit<EventRow, 'seq' | 'published_seq'>> = [];
  const marks: Array<{ id: string; key: string }> = [];
  const createdAt = new Date(nowMs).toISOString();
  for (const part of chunks([...new Set(ids)], IDS_PER_QUERY)) {
    const rows: ResourceRow[] = await trx(kind.table).whereIn('id', part);
    for (const row of rows) {
      const apiKey = kind.apiKeyOf(row);
      if (!apiKey) continue;
      const key = kind.keyOf(row);
      if (key === row.event_key) continue;
      const id = newEventId();
      const body: EventBody = { id, type: kind.type, createdAt, data: kind.render(row) };
      events.push({
        id,
        api_key: apiKey,
        webhook_id: null,
        type: kind.type,
        resource_id: row.id,
        body: JSON.stringify(body),
        created_at: nowMs,
      });
      marks.push({ id: row.id, key });
    }
  }
  for (const part of chunks(events, EVENTS_PER_INSERT)) await trx(EVENTS).insert(part);
  // Not a bump: the mark is the outbox's, and must not make a keeper or a PATCH think the row changed. One
  // statement per chunk (a CASE on the id), so a claim of a whole crossing wave costs a few writes, not one a row.
  for (const part of chunks(marks, MARKS_PER_UPDATE)) {
    const cases = part.map(() => 'when ? then ?').join(' ');
    await trx(kind.table)
      .whereIn(
        'id',
        part.map((mark) => mark.id),
      )
      .update({
        event_key: trx.raw(
          `case id ${cases} end`,
          part.flatMap((mark) => [mark.id, mark.key]),
        ),
      });
  }
  return events.length;
}

/**
 * recordEvents in the transaction `db` is, or in one of its own when `db` is the plain knex: only for writes that are
 * one statement already committed (the event then follows the change instead of sharing its commit).
 */
export async function recordEventsIn(
  db: Knex | Knex.Transaction,
  kind: ResourceKind,
  ids: readonly string[],
  nowMs: number,
): Promise<void> {
  if (!ids.length) return;
  if (db.isTransaction) await recordEvents(db as Knex.Transaction, kind, ids, nowMs);
  else await db.transaction((trx) => recordEvents(trx, kind, ids, nowMs));
}

/**
 * The outbox: events are written by `recordEvents`, inside the store transaction of the change they describe (so a
 * crash keeps both or neither), then given their place in the delivery order by `publish`, and read in that order.
 */
export class EventOutbox {
  constructor(private readonly knex: Knex) {}

  /** A `ping` for one webhook: published like any event, delivered to that webhook only. */
  async recordPing(apiKey: string, webhookId: string, nowMs: number): Promise<string> {
    const id = newEventId();
    const body: EventBody = {
      id,
      type: 'ping',
      createdAt: new Date(nowMs).toISOString(),
      data: { webhookId },
    };
    await this.knex(EVENTS).insert({
      id,
      api_key: apiKey,
      webhook_id: webhookId,
      type: 'ping',
      resource_id: webhookId,
      body: JSON.stringify(body),
      created_at: nowMs,
    });
    return id;
  }

  /**
   * Gives committed, unpublished events their delivery order: each batch follows every earlier one, whatever the
   * order their transactions committed in (an event that commits late is published late, never skipped by a reader
   * that has passed its insertion order). Publishers take turns on the publisher row. Resolves how many it published.
   */
  async publish(limit = 1000): Promise<number> {
    // Most polls find nothing: a plain read says so without taking the publisher's lock.
    const waiting = await this.knex(EVENTS).select('seq').whereNull('published_seq').limit(1);
    if (!waiting.length) return 0;
    return this.knex.transaction(async (trx) => {
      // A write first: it takes the publisher row's lock on MySQL and SQLite's write lock, so a read-then-write
      // transaction never has to upgrade (SQLite would answer SQLITE_BUSY rather than wait).
      await trx(PUBLISHER)
        .where('name', 'events')
        .update({ last_seq: trx.raw('last_seq') });
      const state = await trx(PUBLISHER).where('name', 'events').first<{ last_seq: Numeric }>();
      if (!state) throw new Error('the event_publisher row is missing');
      const pending: Array<{ seq: Numeric }> = await trx(EVENTS)
        .select('seq')
        .whereNull('published_seq')
        .orderBy('seq', 'asc')
        .limit(limit);
      if (!pending.length) return 0;
      const seqs = pending.map((row) => Number(row.seq));
      const last = Number(state.last_seq);
      // One offset for the batch keeps its insertion order and puts all of it after everything published before.
      const offset = Math.max(0, last - seqs[0]! + 1);
      for (const part of chunks(seqs, IDS_PER_QUERY)) {
        await trx(EVENTS)
          .whereIn('seq', part)
          .update({ published_seq: trx.raw('seq + ?', [offset]) });
      }
      await trx(PUBLISHER)
        .where('name', 'events')
        .update({ last_seq: seqs[seqs.length - 1]! + offset });
      return seqs.length;
    });
  }

  /** The last delivery position given out: a webhook created now starts after it. */
  async lastPublishedSeq(): Promise<number> {
    const row = await this.knex(PUBLISHER).where('name', 'events').first<{ last_seq: Numeric } | undefined>();
    return row ? Number(row.last_seq) : 0;
  }

  /** Published events of one key after `afterSeq`, in delivery order; a webhook's ping only with its id. */
  async listForKey(
    apiKey: string,
    afterSeq: number,
    limit: number,
    webhookId: string | null,
  ): Promise<PublishedEvent[]> {
    const rows: EventRow[] = await this.knex(EVENTS)
      .where('api_key', apiKey)
      .andWhere('published_seq', '>', afterSeq)
      .andWhere((q) => {
        q.whereNull('webhook_id');
        if (webhookId) q.orWhere('webhook_id', webhookId);
      })
      .orderBy('published_seq', 'asc')
      .limit(limit);
    return rows.map(fromRow);
  }

  /** Published events of every key after `afterSeq` (the stream's one reader per process). */
  async listAfter(afterSeq: number, limit: number): Promise<PublishedEvent[]> {
    const rows: EventRow[] = await this.knex(EVENTS)
      .where('published_seq', '>', afterSeq)
      .whereNull('webhook_id')
      .orderBy('published_seq', 'asc')
      .limit(limit);
    return rows.map(fromRow);
  }

  /** The delivery position of a key's event, for resuming after `Last-Event-ID`; undefined if unknown or unpublished. */
  async publishedSeqOf(apiKey: string, eventId: string): Promise<number | undefined> {
    const row = await this.knex(EVENTS)
      .select('published_seq')
      .where({ id: eventId, api_key: apiKey })
      .first<{ published_seq: Numeric | null } | undefined>();
    return row?.published_seq === null || row?.published_seq === undefined
      ? undefined
      : Number(row.published_seq);
  }

  /** Drops published events older than `beforeMs`; resolves how many. */
  async prune(beforeMs: number): Promise<number> {
    return this.knex(EVENTS).where('created_at', '<', beforeMs).whereNotNull('published_seq').delete();
  }
}
