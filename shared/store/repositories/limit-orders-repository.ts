import type { Knex } from 'knex';

/** Limit orders: written by the api, claimed and settled by the keeper. */
export class LimitOrdersRepository {
  constructor(protected readonly knex: Knex) {}
}
