import type { Knex } from 'knex';
import * as initial from './20261121000001_initial';
import * as keeper from './20261122000001_keeper';
import * as crossChain from './20261124000001_cross_chain';
import * as transferOriginContract from './20261127000001_transfer_origin_contract';
import * as transferFillReplacements from './20261127000002_transfer_fill_replacements';
import * as keeperTransactionItems from './20261127000003_keeper_transaction_items';
import * as signedMaxFeeBps from './20261128000001_signed_max_fee_bps';
import * as events from './20261129000001_events';
import * as transferBuilders from './20261129000002_transfer_builders';
import * as executionIndex from './20261130000001_execution_index';
import * as nonceLog from './20261201000001_nonce_log';

interface Migration {
  up(knex: Knex): Promise<void>;
  down(knex: Knex): Promise<void>;
}

/** Migrations in order. Listed statically so they load the same under tsx, jest and a bundler. */
export const MIGRATIONS: ReadonlyArray<readonly [string, Migration]> = [
  ['20261121000001_initial', initial],
  ['20261122000001_keeper', keeper],
  ['20261124000001_cross_chain', crossChain],
  ['20261127000001_transfer_origin_contract', transferOriginContract],
  ['20261127000002_transfer_fill_replacements', transferFillReplacements],
  ['20261127000003_keeper_transaction_items', keeperTransactionItems],
  ['20261128000001_signed_max_fee_bps', signedMaxFeeBps],
  ['20261129000001_events', events],
  ['20261129000002_transfer_builders', transferBuilders],
  ['20261130000001_execution_index', executionIndex],
  ['20261201000001_nonce_log', nonceLog],
];
