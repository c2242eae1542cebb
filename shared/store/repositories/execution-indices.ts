import type { Dialect } from '../create-knex';
import type { Db } from './keeper-row-moves';

/** The one-row counter of migration 20261130000001: `next_index`, the first execution index not handed out. */
export const EXECUTION_INDEX_COUNTER = 'execution_index_counter';

/** A claimed row as the claim read it: its execution index, NULL before its first claim. */
export interface IndexedRow {
  id: string;
  exec_index: number | string | bigint | null;
}

/** A row's execution index, or null before its first claim (MySQL may answer a BIGINT as a string). */
export function executionIndexOf(row: IndexedRow): bigint | null {
  return row.exec_index === null || row.exec_index === undefined ? null : BigInt(row.exec_index);
}

/**
 * Gives the rows a claim just took that have no execution index yet consecutive ones from the store's counter, in
 * that order, inside the claim's store transaction `db` (so an index is written before any transaction carrying it
 * is signed, and two keepers claiming at once take disjoint ranges: the counter's row is written first and stays
 * locked, or on SQLite the transaction holds the write lock, until the claim commits). One counter update (read back
 * with RETURNING on SQLite, by a second statement on MySQL, which lacks it) and one update of the rows; nothing when
 * every row has its index already (a re-claim). The rows are updated in place.
 */
export async function assignExecutionIndices(
  db: Db,
  dialect: Dialect,
  table: string,
  rows: readonly IndexedRow[],
): Promise<void> {
  const missing = rows.filter((row) => executionIndexOf(row) === null);
  if (!missing.length) return;
  const bump = { next_index: db.raw('next_index + ?', [missing.length]) };
  let next: unknown;
  if (dialect === 'sqlite') {
    const [row] = (await db(EXECUTION_INDEX_COUNTER)
      .where({ id: 1 })
      .update(bump)
      .returning('next_index')) as Array<{ next_index: unknown }>;
    next = row?.next_index;
  } else {
    await db(EXECUTION_INDEX_COUNTER).where({ id: 1 }).update(bump);
    next = (
      (await db(EXECUTION_INDEX_COUNTER).where({ id: 1 }).first('next_index')) as { next_index: unknown }
    )?.next_index;
  }
  if (next === undefined || next === null) throw new Error(`${EXECUTION_INDEX_COUNTER} has no row`);
  const first = Number(next) - missing.length;
  if (!Number.isSafeInteger(first + missing.length) || first < 1) {
    throw new Error(`${EXECUTION_INDEX_COUNTER} out of range: ${String(next)}`);
  }
  // One CASE instead of a statement per row (the claims' chunks keep the bound parameters few). By primary key
  // only: the claim holds these rows, and a filter on exec_index could make MySQL walk (and wait on) that index's
  // other rows, which the api's writes hold.
  const cases = missing.map(() => 'when ? then ?').join(' ');
  const bindings = missing.flatMap((row, i) => [row.id, first + i]);
  const written = await db(table)
    .whereIn(
      'id',
      missing.map((row) => row.id),
    )
    .update({ exec_index: db.raw(`case id ${cases} end`, bindings) });
  if (written !== missing.length) {
    throw new Error(`${table}: ${missing.length - written} of the claimed rows were not given their index`);
  }
  missing.forEach((row, i) => {
    (row as { exec_index: number }).exec_index = first + i;
  });
}
