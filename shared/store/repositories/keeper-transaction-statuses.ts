/**
 * The statuses of a `keeper_transactions` row. Apart from the repository of that table so the order
 * repositories it builds on can tell whether an order's transaction is still open without importing it.
 */
export const KEEPER_TRANSACTION_STATUSES = [
  'signed',
  'pending',
  'mined',
  'settled',
  'dropped',
  'replaced',
] as const;
export type KeeperTransactionStatus = (typeof KEEPER_TRANSACTION_STATUSES)[number];
/** Statuses a tracker still follows. */
export const OPEN_KEEPER_TRANSACTION_STATUSES: readonly KeeperTransactionStatus[] = [
  'signed',
  'pending',
  'mined',
];
