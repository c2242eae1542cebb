import type { Knex } from 'knex';

/** DCA strategies and their orders: strategies written by the api, orders created and settled by the keeper. */
export class DcaRepository {
  constructor(protected readonly knex: Knex) {}
}
