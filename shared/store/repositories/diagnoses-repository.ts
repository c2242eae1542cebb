import type { Knex } from 'knex';
import {
  nextDiagnosis,
  parseDiagnosis,
  serializeDiagnosis,
  type DiagnosisInput,
} from '../../domain/diagnosis';
import { recordEvents } from '../../events/event-outbox';
import { DCA_ORDER_EVENTS, LIMIT_ORDER_EVENTS, type ResourceKind } from '../../events/resource-kinds';
import { chunks } from './keeper-row-moves';

/** One order's diagnosis as the keeper judged it; the store keeps its `since`. */
export interface DiagnosisEntry {
  id: string;
  diagnosis: DiagnosisInput;
}

interface StoredDiagnosisRow {
  id: string;
  status: string;
  diagnosis: string | null;
}

/**
 * Why pending orders have not filled (`limit_orders.diagnosis`, `dca_orders.diagnosis`), as the keeper judges them.
 *
 * A diagnosis is not a change of the order: it never bumps `version` or `updated_at` (the api's PATCH holds the
 * version for its optimistic check, and the keeper's index reads changes by `updated_at`), and it is written only
 * on rows still `pending`. A judgment equal to the stored one (same code and detail, a market price that moved less
 * than MATERIAL_PRICE_MOVE) writes nothing, so a keeper may judge as often as it likes. Each write is a
 * compare-and-set on the stored text: a row another writer changed in between is left as that writer left it (the
 * keeper judges it again). The writes and their events (a new code sends `limit_order.updated` /
 * `dca_order.updated`) share one store transaction.
 */
export class DiagnosesRepository {
  constructor(private readonly knex: Knex) {}

  /** Resolves the ids whose diagnosis was written. */
  setLimitOrderDiagnoses(entries: readonly DiagnosisEntry[], nowMs: number): Promise<string[]> {
    return this.set(LIMIT_ORDER_EVENTS, entries, nowMs);
  }

  /** Resolves the ids whose diagnosis was written. */
  setDcaOrderDiagnoses(entries: readonly DiagnosisEntry[], nowMs: number): Promise<string[]> {
    return this.set(DCA_ORDER_EVENTS, entries, nowMs);
  }

  private async set(
    kind: ResourceKind,
    entries: readonly DiagnosisEntry[],
    nowMs: number,
  ): Promise<string[]> {
    // The last judgment of an order wins.
    const wanted = new Map<string, DiagnosisInput>();
    for (const entry of entries) wanted.set(entry.id, entry.diagnosis);
    if (!wanted.size) return [];
    // Read outside the transaction: the writes below compare-and-set, and a transaction that starts with a write
    // holds SQLite's write lock from its first statement (one that read first could fail with SQLITE_BUSY).
    const writes: Array<{ id: string; before: string | null; after: string }> = [];
    for (const part of chunks([...wanted.keys()])) {
      const rows: StoredDiagnosisRow[] = await this.knex(kind.table)
        .select('id', 'status', 'diagnosis')
        .whereIn('id', part)
        .andWhere('status', 'pending');
      for (const row of rows) {
        const next = nextDiagnosis(parseDiagnosis(row.diagnosis), wanted.get(row.id)!, nowMs);
        if (next) writes.push({ id: row.id, before: row.diagnosis, after: serializeDiagnosis(next) });
      }
    }
    if (!writes.length) return [];
    return this.knex.transaction(async (trx) => {
      const written: string[] = [];
      for (const write of writes) {
        const query = trx(kind.table).where({ id: write.id, status: 'pending' });
        if (write.before === null) query.whereNull('diagnosis');
        else query.andWhere('diagnosis', write.before);
        // Only the diagnosis: no version, no updated_at.
        if ((await query.update({ diagnosis: write.after })) > 0) written.push(write.id);
      }
      await recordEvents(trx, kind, written, nowMs);
      return written;
    });
  }
}
