import type { Knex } from 'knex';

/** Every secret the store keeps sealed under the master key: its table, the row key it is bound to, its column. */
const SEALED = [
  { table: 'accounts', key: 'api_key', column: 'secret_encrypted' },
  { table: 'webhooks', key: 'id', column: 'secret_sealed' },
] as const;

export type SealedTable = (typeof SEALED)[number]['table'];

/** A sealed secret sealed anew, undefined when it needs nothing; throws when it cannot be opened. */
export type Reseal = (sealed: string, associatedData: string) => string | undefined;

export interface ResealReport {
  resealed: Record<SealedTable, number>;
  /** Already sealed under the current key. */
  current: number;
  /** Rows neither key opens (`table key`), left as they are. */
  unreadable: string[];
}

const PAGE = 500;

/** The store's sealed secrets as one set, for a master-key rotation. */
export class SealedSecrets {
  constructor(private readonly knex: Knex) {}

  /**
   * Seals every stored secret anew where `reseal` says so, each row written only if its sealed value is still the
   * one read (a row changed meanwhile is left to the next run), and reports what it did. Safe to run again.
   */
  async resealAll(reseal: Reseal): Promise<ResealReport> {
    const report: ResealReport = { resealed: { accounts: 0, webhooks: 0 }, current: 0, unreadable: [] };
    for (const { table, key, column } of SEALED) {
      let after = '';
      for (;;) {
        const rows: Array<Record<string, string>> = await this.knex(table)
          .select(key, column)
          .where(key, '>', after)
          .orderBy(key, 'asc')
          .limit(PAGE);
        if (!rows.length) break;
        for (const row of rows) {
          const id = row[key]!;
          const sealed = row[column]!;
          let fresh: string | undefined;
          try {
            fresh = reseal(sealed, id);
          } catch {
            report.unreadable.push(`${table} ${id}`);
            continue;
          }
          if (fresh === undefined) {
            report.current += 1;
            continue;
          }
          const changed = await this.knex(table)
            .where({ [key]: id, [column]: sealed })
            .update({ [column]: fresh });
          if (changed > 0) report.resealed[table] += 1;
        }
        after = rows[rows.length - 1]![key]!;
      }
    }
    return report;
  }
}
