import type { CommandSpec } from '../command';
import { accountCreate } from './account';
import { authorization } from './authorization';
import { chains, tokens } from './chains';
import { events } from './events';
import { dcaCancel, dcaCreate, dcaGet, dcaList, dcaOrders } from './dca';
import { orderCancel, orderCreate, orderGet, orderList } from './order';
import { quote } from './quote';
import { swap } from './swap';
import { transferStatus } from './transfer-status';
import { tx } from './tx';
import { webhookCreate, webhookDelete, webhookList, webhookLog, webhookTest } from './webhook';

/** Every command, in the order the general help lists them. */
export const COMMANDS: readonly CommandSpec[] = [
  accountCreate,
  chains,
  tokens,
  quote,
  swap,
  authorization,
  orderCreate,
  orderList,
  orderGet,
  orderCancel,
  dcaCreate,
  dcaList,
  dcaGet,
  dcaOrders,
  dcaCancel,
  tx,
  transferStatus,
  events,
  webhookCreate,
  webhookList,
  webhookDelete,
  webhookTest,
  webhookLog,
];
