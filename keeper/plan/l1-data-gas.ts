import { Interface } from 'ethers';
import type { ChainClient } from '../../shared/chain/chain-client';

/**
 * Arbitrum Nitro charges a transaction's L1 data in L2 gas units, inside its gas limit: a limit set from the EVM's
 * gas alone is refused. Its NodeInterface (a virtual contract at 0xc8, answered by the node's eth_call) gives that
 * part for given calldata.
 */
const NODE_INTERFACE = '0x00000000000000000000000000000000000000C8';
const ARBITRUM_CHAIN_IDS: ReadonlySet<number> = new Set([42161, 42170, 421614]);

let nodeInterface: Interface | undefined;

function nodeInterfaceAbi(): Interface {
  nodeInterface ??= new Interface([
    'function gasEstimateL1Component(address to, bool contractCreation, bytes data) payable returns (uint64 gasEstimateForL1, uint256 baseFee, uint256 l1BaseFeeEstimate)',
  ]);
  return nodeInterface;
}

/** Whether a chain's gas limits must carry the L1 data part (see l1DataGas). */
export function chargesL1DataInGas(chainId: number): boolean {
  return ARBITRUM_CHAIN_IDS.has(chainId);
}

/**
 * The L2 gas the chain counts for the L1 data of a call to `to` with `data` (0 on chains that charge it apart, and
 * from nodes that do not run Arbitrum's NodeInterface).
 */
export async function l1DataGas(
  client: Pick<ChainClient, 'call'>,
  chainId: number,
  from: string,
  to: string,
  data: string,
): Promise<bigint> {
  if (!chargesL1DataInGas(chainId)) return 0n;
  const abi = nodeInterfaceAbi();
  const answer = await client.call({
    from,
    to: NODE_INTERFACE,
    data: abi.encodeFunctionData('gasEstimateL1Component', [to, false, data]),
  });
  // A node without the NodeInterface (anvil or ganache with an Arbitrum chain id, a fork of Arbitrum) answers a call
  // to an address without code with nothing: it counts no L1 data in gas limits.
  if (answer === '0x') return 0n;
  const [gas] = abi.decodeFunctionResult('gasEstimateL1Component', answer) as unknown as [bigint];
  return gas;
}
