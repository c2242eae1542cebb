import type { Knex } from 'knex';
import { EventOutbox } from '../events/event-outbox';
import type { Logger } from '../log/create-logger';
import { createKnex, dialectOf, type Dialect, type StoreConnectionConfig } from './create-knex';
import { createFastReader, type FastReader } from './fast-reader';
import { migrateToLatest } from './migrate';
import { SqliteDirect } from './sqlite-direct';
import { WalCheckpointer } from './wal-checkpointer';
import { AccountsRepository } from './repositories/accounts-repository';
import { DcaRepository } from './repositories/dca-repository';
import { DiagnosesRepository } from './repositories/diagnoses-repository';
import { KeeperDcaRepository } from './repositories/keeper-dca-repository';
import { KeeperLimitOrdersRepository } from './repositories/keeper-limit-orders-repository';
import { KeeperTransactionsRepository } from './repositories/keeper-transactions-repository';
import { LimitOrdersRepository } from './repositories/limit-orders-repository';
import { NoncesRepository } from './repositories/nonces-repository';
import { ReferencePricesRepository } from './repositories/reference-prices-repository';
import { RootBundlesRepository } from './repositories/root-bundles-repository';
import { TokensRepository } from './repositories/tokens-repository';
import { TransfersRepository } from './repositories/transfers-repository';
import { WebhooksRepository } from './repositories/webhooks-repository';

/** The store both processes share: one knex and the repositories over it. */
export interface Store {
  knex: Knex;
  dialect: Dialect;
  accounts: AccountsRepository;
  nonces: NoncesRepository;
  tokens: TokensRepository;
  referencePrices: ReferencePricesRepository;
  limitOrders: LimitOrdersRepository;
  dca: DcaRepository;
  /** The keeper's moves: claims, leases, batch transactions, settlement. */
  keeperLimitOrders: KeeperLimitOrdersRepository;
  keeperDca: KeeperDcaRepository;
  keeperTransactions: KeeperTransactionsRepository;
  /** Cross-chain transfers the keeper relays and settles, with its scan cursors; the api reads their status. */
  transfers: TransfersRepository;
  /** Root bundles the keeper proposes to SpokePools for repayments and refunds. */
  rootBundles: RootBundlesRepository;
  /** Events of every resource (written with the change they describe) and their delivery order. */
  events: EventOutbox;
  webhooks: WebhooksRepository;
  /** Why pending orders have not filled, as the keeper judges them (never a change of the order). */
  diagnoses: DiagnosesRepository;
  close(): Promise<void>;
}

export function storeOver(
  knex: Knex,
  dialect: Dialect,
  reader: FastReader,
  checkpointer?: WalCheckpointer,
): Store {
  const sqlite = dialect === 'sqlite' ? new SqliteDirect(knex) : undefined;
  return {
    knex,
    dialect,
    accounts: new AccountsRepository(knex),
    nonces: new NoncesRepository(knex, sqlite),
    tokens: new TokensRepository(knex),
    referencePrices: new ReferencePricesRepository(knex),
    limitOrders: new LimitOrdersRepository(knex, reader, dialect, sqlite),
    dca: new DcaRepository(knex),
    keeperLimitOrders: new KeeperLimitOrdersRepository(knex, dialect),
    keeperDca: new KeeperDcaRepository(knex, dialect),
    keeperTransactions: new KeeperTransactionsRepository(knex, dialect),
    transfers: new TransfersRepository(knex, dialect),
    rootBundles: new RootBundlesRepository(knex, dialect),
    events: new EventOutbox(knex),
    webhooks: new WebhooksRepository(knex),
    diagnoses: new DiagnosesRepository(knex),
    close: async () => {
      await checkpointer?.stop();
      await reader.close();
      await knex.destroy();
    },
  };
}

/** Connects and migrates to the latest schema; knex's own messages go to `log` when given. */
export async function openStore(config: StoreConnectionConfig, log?: Logger): Promise<Store> {
  const knex = createKnex(config, log);
  try {
    await migrateToLatest(knex);
  } catch (err) {
    await knex.destroy();
    throw err;
  }
  const dialect = dialectOf(config);
  const checkpointer = dialect === 'sqlite' ? await WalCheckpointer.start(knex, config.dataDir) : undefined;
  return storeOver(knex, dialect, createFastReader(config), checkpointer);
}
