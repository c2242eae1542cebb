import type { Knex } from 'knex';
import * as initial from './20261121000001_initial';

interface Migration {
  up(knex: Knex): Promise<void>;
  down(knex: Knex): Promise<void>;
}

/** Migrations in order. Listed statically so they load the same under tsx, jest and a bundler. */
export const MIGRATIONS: ReadonlyArray<readonly [string, Migration]> = [['20261121000001_initial', initial]];
