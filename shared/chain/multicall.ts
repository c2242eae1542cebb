import { Interface, type BlockTag, type Result } from 'ethers';
import type { ChainClient } from './chain-client';

/**
 * Batched reads through Uniswap's UniswapInterfaceMulticall (deployed on every chain Uniswap runs on; the
 * devnet world deploys it too). Unlike Multicall2/3 it runs each call with its own gas limit and reports
 * failures per call, so one reverting pool does not fail the batch.
 */
export const MULTICALL_ABI = [
  'function multicall((address target, uint256 gasLimit, bytes callData)[] calls) returns (uint256 blockNumber, (bool success, uint256 gasUsed, bytes returnData)[] returnData)',
] as const;

const multicallInterface = new Interface(MULTICALL_ABI);

/** Enough for any view (pool slot0, reserves, a tick bitmap word); bounds a call that would loop forever. */
export const DEFAULT_CALL_GAS_LIMIT = 1_000_000n;
/** Calls per eth_call: far below nodes' RPC gas caps (50M on geth) and response size limits. */
export const DEFAULT_CHUNK_SIZE = 200;

export interface MulticallCall {
  target: string;
  callData: string;
  gasLimit?: bigint;
}

export interface MulticallResult {
  success: boolean;
  /** Return data of the call, or its revert data when `success` is false. */
  returnData: string;
}

export interface MulticallOptions {
  chunkSize?: number;
  /** The block to read at; default latest. */
  blockTag?: BlockTag;
}

export interface MulticallResponse {
  /** The block every result was read at. */
  blockNumber: number;
  /** One per call, in the order of the calls. */
  results: MulticallResult[];
}

/**
 * Runs the calls in chunks of `chunkSize` eth_calls, all at one block: the first chunk at `blockTag` (latest by
 * default) fixes the block, the other chunks then run in parallel at that block number. With a numeric
 * `blockTag` every chunk runs in parallel at once.
 */
export async function multicall(
  client: ChainClient,
  multicallAddress: string,
  calls: readonly MulticallCall[],
  opts: MulticallOptions = {},
): Promise<MulticallResponse> {
  const chunkSize = opts.chunkSize ?? DEFAULT_CHUNK_SIZE;
  if (!Number.isInteger(chunkSize) || chunkSize < 1)
    throw new Error(`chunkSize must be >= 1, got ${chunkSize}`);
  const chunks: MulticallCall[][] = [];
  for (let i = 0; i < calls.length; i += chunkSize) chunks.push(calls.slice(i, i + chunkSize));
  if (chunks.length === 0) {
    const blockNumber = await blockNumberOf(client, opts.blockTag);
    return { blockNumber, results: [] };
  }

  const fixed = typeof opts.blockTag === 'number' || typeof opts.blockTag === 'bigint';
  let blockTag: BlockTag = opts.blockTag ?? 'latest';
  let first: ChunkResult | undefined;
  if (!fixed) {
    first = await runChunk(client, multicallAddress, chunks[0]!, blockTag);
    blockTag = first.blockNumber;
  }
  const rest = await Promise.all(
    chunks.slice(first ? 1 : 0).map((chunk) => runChunk(client, multicallAddress, chunk, blockTag)),
  );
  const all = first ? [first, ...rest] : rest;
  const blockNumber = all[0]!.blockNumber;
  const stray = all.find((chunk) => chunk.blockNumber !== blockNumber);
  // A load balancer in front of nodes at different heights may ignore the block tag; mixed reads are unusable.
  if (stray) throw new Error(`multicall chunks read blocks ${blockNumber} and ${stray.blockNumber}`);
  return { blockNumber, results: all.flatMap((chunk) => chunk.results) };
}

interface ChunkResult {
  blockNumber: number;
  results: MulticallResult[];
}

async function runChunk(
  client: ChainClient,
  multicallAddress: string,
  chunk: readonly MulticallCall[],
  blockTag: BlockTag,
): Promise<ChunkResult> {
  const data = multicallInterface.encodeFunctionData('multicall', [
    chunk.map((c) => [c.target, c.gasLimit ?? DEFAULT_CALL_GAS_LIMIT, c.callData]),
  ]);
  const raw = await client.call({ to: multicallAddress, data }, blockTag);
  const [blockNumber, returnData] = multicallInterface.decodeFunctionResult('multicall', raw) as unknown as [
    bigint,
    Result[],
  ];
  if (returnData.length !== chunk.length) {
    throw new Error(
      `multicall at ${multicallAddress} returned ${returnData.length} results for ${chunk.length} calls`,
    );
  }
  return {
    blockNumber: Number(blockNumber),
    results: returnData.map((r) => ({ success: r[0] as boolean, returnData: r[2] as string })),
  };
}

async function blockNumberOf(client: ChainClient, blockTag: BlockTag | undefined): Promise<number> {
  if (typeof blockTag === 'number' || typeof blockTag === 'bigint') return Number(blockTag);
  if (blockTag === undefined || blockTag === 'latest') return client.blockNumber();
  const block = await client.getBlock(blockTag);
  if (!block) throw new Error(`no block ${String(blockTag)}`);
  return block.number;
}
