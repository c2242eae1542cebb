import { Interface } from 'ethers';
import type { ChainClient } from '../../shared/chain/chain-client';
import type { ExecutionOrder } from './execution-order';

const ERC20 = new Interface([
  'function balanceOf(address) view returns (uint256)',
  'function allowance(address owner, address spender) view returns (uint256)',
]);

export interface Funding {
  balance: bigint;
  allowance: bigint;
}

export interface FundingVerdict {
  funded: { order: ExecutionOrder; fee: bigint; allowance: bigint }[];
  failed: { order: ExecutionOrder; reason: 'INSUFFICIENT_BALANCE' | 'INSUFFICIENT_ALLOWANCE' }[];
}

async function read(client: ChainClient, token: string, fn: string, args: unknown[]): Promise<bigint> {
  const data = await client.call({ to: token, data: ERC20.encodeFunctionData(fn, args) });
  return ERC20.decodeFunctionResult(fn, data)[0] as bigint;
}

/**
 * Each maker's balance and allowance to the OrderExecutor must cover amount plus fee summed over the maker's
 * orders of that token in the batch (what the contract will pull). Orders are admitted oldest claim first, so a
 * maker who funded some orders gets those executed and only the rest fail. RPC failures throw.
 */
export async function checkFunding(
  client: ChainClient,
  orderExecutor: string,
  orders: readonly { order: ExecutionOrder; fee: bigint }[],
): Promise<FundingVerdict> {
  const keys = [...new Set(orders.map(({ order }) => `${order.maker.toLowerCase()}|${order.tokenIn}`))];
  const funding = new Map<string, Funding>();
  await Promise.all(
    keys.map(async (key) => {
      const [maker, token] = key.split('|') as [string, string];
      const [balance, allowance] = await Promise.all([
        read(client, token, 'balanceOf', [maker]),
        read(client, token, 'allowance', [maker, orderExecutor]),
      ]);
      funding.set(key, { balance, allowance });
    }),
  );
  const verdict: FundingVerdict = { funded: [], failed: [] };
  const used = new Map<string, bigint>();
  for (const { order, fee } of orders) {
    const key = `${order.maker.toLowerCase()}|${order.tokenIn}`;
    const { balance, allowance } = funding.get(key)!;
    const need = (used.get(key) ?? 0n) + order.amountIn + fee;
    if (balance < need) verdict.failed.push({ order, reason: 'INSUFFICIENT_BALANCE' });
    else if (allowance < need) verdict.failed.push({ order, reason: 'INSUFFICIENT_ALLOWANCE' });
    else {
      used.set(key, need);
      verdict.funded.push({ order, fee, allowance });
    }
  }
  return verdict;
}
