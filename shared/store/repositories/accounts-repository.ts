import type { Knex } from 'knex';

export interface AccountRecord {
  apiKey: string;
  name: string;
  /** scrypt hash of the passphrase (never the passphrase). */
  passphraseHash: string;
  /** AES-256-GCM box of the secret key (never the secret). */
  secretEncrypted: string;
  active: boolean;
  createdAt: number;
  updatedAt: number;
}

interface AccountRow {
  api_key: string;
  name: string;
  passphrase_hash: string;
  secret_encrypted: string;
  active: number | boolean;
  created_at: number | string;
  updated_at: number | string;
}

function fromRow(row: AccountRow): AccountRecord {
  return {
    apiKey: row.api_key,
    name: row.name,
    passphraseHash: row.passphrase_hash,
    secretEncrypted: row.secret_encrypted,
    active: Boolean(row.active),
    createdAt: Number(row.created_at),
    updatedAt: Number(row.updated_at),
  };
}

export class AccountsRepository {
  constructor(private readonly knex: Knex) {}

  async insert(account: AccountRecord): Promise<void> {
    await this.knex<AccountRow>('accounts').insert({
      api_key: account.apiKey,
      name: account.name,
      passphrase_hash: account.passphraseHash,
      secret_encrypted: account.secretEncrypted,
      active: account.active,
      created_at: account.createdAt,
      updated_at: account.updatedAt,
    });
  }

  async findByApiKey(apiKey: string): Promise<AccountRecord | undefined> {
    const row = await this.knex<AccountRow>('accounts').where({ api_key: apiKey }).first();
    return row ? fromRow(row) : undefined;
  }

  async list(): Promise<AccountRecord[]> {
    const rows = await this.knex<AccountRow>('accounts').select('*').orderBy('created_at', 'asc');
    return rows.map(fromRow);
  }

  /** Returns false when no account has that key. */
  async setActive(apiKey: string, active: boolean, now: number): Promise<boolean> {
    const changed = await this.knex<AccountRow>('accounts')
      .where({ api_key: apiKey })
      .update({ active, updated_at: now });
    return changed > 0;
  }
}
