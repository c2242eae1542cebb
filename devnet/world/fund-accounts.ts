import { TEST_TOKEN_ABI, WETH_ABI } from './abis';
import type { TxQueue } from './tx-queue';
import { fundAmount, reserveTotals, type WorldSpec } from './world-spec';

const MINT_GAS = 120_000n;
const TRANSFER_GAS = 80_000n;

/** Native coins the deployer must wrap: the wrapped token of every pool plus each funded account's share. */
export function wrappedNeeded(spec: WorldSpec, fundCount: number): bigint {
  const pools = reserveTotals(spec).get(spec.wrapped.symbol)?.total ?? 0n;
  return pools + fundAmount(spec, spec.wrapped.symbol) * BigInt(fundCount);
}

/** Gives the deployer what seeding the pools takes: every TestToken's pool total, and wrapped native. */
export function queueDeployerSupply(
  queue: TxQueue,
  spec: WorldSpec,
  addressOf: (symbol: string) => string,
  fundCount: number,
): void {
  const totals = reserveTotals(spec);
  queue.call(
    `${spec.wrapped.symbol}.deposit`,
    addressOf(spec.wrapped.symbol),
    WETH_ABI,
    'deposit',
    [],
    80_000n,
    wrappedNeeded(spec, fundCount),
  );
  for (const token of spec.tokens) {
    const total = totals.get(token.symbol)?.total ?? 0n;
    if (total === 0n) continue;
    queue.call(
      `${token.symbol}.mint(deployer)`,
      addressOf(token.symbol),
      TEST_TOKEN_ABI,
      'mint',
      [queue.address, total],
      MINT_GAS,
    );
  }
}

/**
 * Gives each account, of every token, FUND_SHARE of the token's largest pool reserve: TestTokens are minted,
 * the wrapped native comes out of what the deployer wrapped for it.
 */
export function queueFunding(
  queue: TxQueue,
  spec: WorldSpec,
  addressOf: (symbol: string) => string,
  accounts: readonly string[],
): void {
  for (const account of accounts) {
    const wrapped = spec.wrapped.symbol;
    queue.call(
      `${wrapped}.transfer(${account})`,
      addressOf(wrapped),
      WETH_ABI,
      'transfer',
      [account, fundAmount(spec, wrapped)],
      TRANSFER_GAS,
    );
    for (const token of spec.tokens) {
      queue.call(
        `${token.symbol}.mint(${account})`,
        addressOf(token.symbol),
        TEST_TOKEN_ABI,
        'mint',
        [account, fundAmount(spec, token.symbol)],
        MINT_GAS,
      );
    }
  }
}
