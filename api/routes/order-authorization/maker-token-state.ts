import type { ChainClient } from '../../../shared/chain/chain-client';
import { erc20Interface, orderExecutorInterface } from '../../../shared/chain/contract-interfaces';
import { multicall } from '../../../shared/chain/multicall';

/** What the chain says about a maker and the token it sells, read at one block. */
export interface MakerTokenState {
  allowance: bigint;
  balance: bigint;
  /** The OrderExecutor's cap on an order's execution fee, in basis points of its amount. */
  maxFeeBps: bigint;
}

/** One multicall: the three reads come from the same block, so allowance and balance agree with each other. */
export async function readMakerTokenState(
  client: ChainClient,
  contracts: { multicall: string; orderExecutor: string },
  maker: string,
  token: string,
): Promise<MakerTokenState> {
  const erc20 = erc20Interface();
  const executor = orderExecutorInterface();
  const { results } = await multicall(client, contracts.multicall, [
    { target: token, callData: erc20.encodeFunctionData('allowance', [maker, contracts.orderExecutor]) },
    { target: token, callData: erc20.encodeFunctionData('balanceOf', [maker]) },
    { target: contracts.orderExecutor, callData: executor.encodeFunctionData('maxFeeBps') },
  ]);
  const [allowance, balance, maxFeeBps] = results;
  if (!allowance?.success || !balance?.success || !maxFeeBps?.success) {
    throw new Error('a read of the maker token state reverted');
  }
  return {
    allowance: erc20.decodeFunctionResult('allowance', allowance.returnData)[0] as bigint,
    balance: erc20.decodeFunctionResult('balanceOf', balance.returnData)[0] as bigint,
    maxFeeBps: executor.decodeFunctionResult('maxFeeBps', maxFeeBps.returnData)[0] as bigint,
  };
}
