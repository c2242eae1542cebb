import type { Interface, Log } from 'ethers';
import type { ChainClient } from '../chain/chain-client';
import { erc20Interface } from '../chain/contract-interfaces';

/** RPC access per chain, as the api's and the keeper's ChainClients give it. */
export interface BridgeClients {
  find(chainId: number): ChainClient | undefined;
}

/** The fields of a log the bridge decoders read. */
export type BridgeLog = Pick<
  Log,
  'topics' | 'data' | 'address' | 'blockNumber' | 'blockHash' | 'transactionHash' | 'index'
>;

/** A view function's first return value. */
export async function readView<T>(
  client: ChainClient,
  iface: Interface,
  to: string,
  fn: string,
  args: readonly unknown[],
): Promise<T> {
  const data = await client.call({ to, data: iface.encodeFunctionData(fn, [...args]) });
  return iface.decodeFunctionResult(fn, data)[0] as T;
}

export function erc20Balance(client: ChainClient, token: string, owner: string): Promise<bigint> {
  return readView<bigint>(client, erc20Interface(), token, 'balanceOf', [owner]);
}

export function erc20Allowance(
  client: ChainClient,
  token: string,
  owner: string,
  spender: string,
): Promise<bigint> {
  return readView<bigint>(client, erc20Interface(), token, 'allowance', [owner, spender]);
}

export async function nativeBalance(client: ChainClient, owner: string): Promise<bigint> {
  return BigInt(String(await client.send('eth_getBalance', [owner, 'latest'])));
}

/** The chain's latest block: its number and its timestamp (seconds). */
export async function latestBlock(client: ChainClient): Promise<{ number: number; timestamp: number }> {
  const block = await client.getBlock('latest');
  if (!block) throw new Error(`chain ${client.chainId} returned no latest block`);
  return { number: block.number, timestamp: block.timestamp };
}

interface RawLog {
  address: string;
  topics: string[];
  data: string;
  blockNumber: string;
  blockHash: string;
  transactionHash: string;
  logIndex: string;
  removed?: boolean;
}

/**
 * eth_getLogs of one contract with topic filters (null: any), over the whole chain unless `fromBlock` is given;
 * removed (reorged) logs are left out.
 */
export async function contractLogs(
  client: ChainClient,
  address: string,
  topics: ReadonlyArray<string | null>,
  fromBlock = 0,
): Promise<BridgeLog[]> {
  const raw = (await client.send('eth_getLogs', [
    { address, topics: [...topics], fromBlock: `0x${fromBlock.toString(16)}`, toBlock: 'latest' },
  ])) as RawLog[];
  return raw
    .filter((log) => log.removed !== true)
    .map((log) => ({
      address: log.address,
      topics: log.topics,
      data: log.data,
      blockNumber: Number(log.blockNumber),
      blockHash: log.blockHash,
      transactionHash: log.transactionHash,
      index: Number(log.logIndex),
    }));
}

/** A uint256 as an indexed topic. */
export const uintTopic = (value: bigint | number): string =>
  `0x${BigInt(value).toString(16).padStart(64, '0')}`;
