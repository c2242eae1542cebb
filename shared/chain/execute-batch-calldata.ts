import { AbiCoder, getAddress, type ParamType } from 'ethers';
import type { PathParams } from '../routing/swap-calldata';
import { addressWord, bytes32Word, bytesTail, uintWord, WordReader } from './abi-words';
import { orderExecutorInterface } from './contract-interfaces';

/**
 * OrderExecutor.executeBatch and executeBudgetedBatch calldata, written and read by hand: a wave of thousands of
 * orders goes through here three times (planned, sent, settled), and ethers' coder spent about a millisecond per
 * order on it. The paths of a group (a few per group, not per order) still go through ethers. The tests hold both
 * ways against ethers' coder.
 *
 * Layout (ABI): executeBatch(Group[] groups, uint256 deadline) and executeBudgetedBatch(Group[] groups,
 * uint256 deadline, uint256[] gasBudgets), Group = (address tokenIn, address tokenOut, Path[] paths, Order[] orders),
 * Order = (address maker, uint64 index, bytes32 ref, bytes32 integrator, uint16 maxDeviationBps, uint16 maxFeeBps,
 * uint256 amountIn, uint256 fee, uint256 minAmountOut, bytes signature).
 */

export interface CalldataOrder {
  maker: string;
  index: bigint;
  ref: string;
  integrator: string;
  maxDeviationBps: number;
  maxFeeBps: number;
  amountIn: bigint;
  fee: bigint;
  minAmountOut: bigint;
  signature: string;
}

export interface CalldataGroup {
  tokenIn: string;
  tokenOut: string;
  paths: readonly PathParams[];
  orders: readonly CalldataOrder[];
}

/** An order as read back: hex values lowercase, the signature left out. */
export type DecodedBatchOrder = Omit<CalldataOrder, 'signature'>;

export interface DecodedBatchGroup {
  /** Checksummed, as ethers' coder reads them. */
  tokenIn: string;
  tokenOut: string;
  orders: DecodedBatchOrder[];
}

/** Head words of an Order: nine values and the offset of its signature. */
const ORDER_HEAD_WORDS = 10;

let selectors: { plain: string; budgeted: string } | undefined;
let pathsType: ParamType | undefined;

function selectorsOf(): { plain: string; budgeted: string } {
  const oe = orderExecutorInterface();
  selectors ??= {
    plain: oe.getFunction('executeBatch')!.selector,
    budgeted: oe.getFunction('executeBudgetedBatch')!.selector,
  };
  return selectors;
}

/** The ABI encoding of a group's paths (its `Path[]` tail), from ethers' coder. */
function pathsTail(paths: readonly PathParams[]): string {
  pathsType ??= orderExecutorInterface()
    .getFunction('executeBatch')!
    .inputs[0]!.arrayChildren!.components!.find((c) => c.name === 'paths')!;
  // encode([T[]]) is one offset word (0x20) and then the array's own encoding.
  return AbiCoder.defaultAbiCoder()
    .encode([pathsType], [paths])
    .slice(2 + 64);
}

function orderTail(order: CalldataOrder): string {
  return (
    addressWord(order.maker) +
    uintWord(order.index, 64) +
    bytes32Word(order.ref) +
    bytes32Word(order.integrator) +
    uintWord(order.maxDeviationBps, 16) +
    uintWord(order.maxFeeBps, 16) +
    uintWord(order.amountIn) +
    uintWord(order.fee) +
    uintWord(order.minAmountOut) +
    uintWord(ORDER_HEAD_WORDS * 32) +
    bytesTail(order.signature)
  );
}

/** An array of dynamic elements: its length, each element's offset (from after the length word), the elements. */
function dynamicArray(elements: readonly string[]): string {
  const parts: string[] = [uintWord(elements.length)];
  let offset = elements.length * 32;
  for (const element of elements) {
    parts.push(uintWord(offset));
    offset += element.length / 2;
  }
  return parts.join('') + elements.join('');
}

function groupTail(group: CalldataGroup): string {
  const paths = pathsTail(group.paths);
  const orders = dynamicArray(group.orders.map(orderTail));
  return (
    addressWord(group.tokenIn) +
    addressWord(group.tokenOut) +
    uintWord(4 * 32) +
    uintWord(4 * 32 + paths.length / 2) +
    paths +
    orders
  );
}

/** A batch's groups ABI-encoded once, for its executeBatch and executeBudgetedBatch calldata both. */
export interface EncodedGroups {
  readonly count: number;
  /** Hex without 0x: the Group[] array's encoding. */
  readonly tail: string;
}

export function encodeGroups(groups: readonly CalldataGroup[]): EncodedGroups {
  return { count: groups.length, tail: dynamicArray(groups.map(groupTail)) };
}

/** executeBatch(groups, deadline) calldata, byte for byte what ethers' `encodeFunctionData` gives. */
export function encodeExecuteBatchCalldata(
  groups: readonly CalldataGroup[] | EncodedGroups,
  deadline: bigint,
): string {
  const encoded = 'tail' in groups ? groups : encodeGroups(groups);
  return selectorsOf().plain + uintWord(2 * 32) + uintWord(deadline) + encoded.tail;
}

/**
 * executeBudgetedBatch(groups, deadline, gasBudgets) calldata, byte for byte what ethers' `encodeFunctionData`
 * gives: one budget per group.
 */
export function encodeExecuteBudgetedBatchCalldata(
  groups: readonly CalldataGroup[] | EncodedGroups,
  deadline: bigint,
  gasBudgets: readonly bigint[],
): string {
  const encoded = 'tail' in groups ? groups : encodeGroups(groups);
  if (gasBudgets.length !== encoded.count) throw new RangeError('one gas budget per group');
  const budgetsTail = uintWord(gasBudgets.length) + gasBudgets.map((b) => uintWord(b)).join('');
  return (
    selectorsOf().budgeted +
    uintWord(3 * 32) +
    uintWord(deadline) +
    uintWord(3 * 32 + encoded.tail.length / 2) +
    encoded.tail +
    budgetsTail
  );
}

/** What OrderExecutor.executeBatch returns: the gas the call used and the gas of each group's settlement. */
export interface BatchGasReport {
  gasUsed: bigint;
  groupGas: bigint[];
}

/** executeBatch's (or executeBudgetedBatch's) return data, as an eth_call gives it. */
export function decodeBatchGasReport(returnData: string): BatchGasReport {
  const [gasUsed, groupGas] = orderExecutorInterface().decodeFunctionResult(
    'executeBatch',
    returnData,
  ) as unknown as [bigint, bigint[]];
  return { gasUsed, groupGas: [...groupGas] };
}

/** The bytes of 0x-hex calldata, or the bytes themselves. */
function bytesOf(calldata: string | Uint8Array): Buffer {
  if (typeof calldata !== 'string')
    return Buffer.from(calldata.buffer, calldata.byteOffset, calldata.byteLength);
  if (!/^0x[0-9a-fA-F]*$/.test(calldata) || calldata.length % 2 !== 0)
    throw new TypeError('calldata is not hex');
  return Buffer.from(calldata.slice(2), 'hex');
}

/**
 * The groups and orders (signatures and paths left out) of executeBatch or executeBudgetedBatch calldata (their
 * first two head words are the same); throws on any other calldata or on an offset or length outside it.
 */
export function decodeExecuteBatchCalldata(calldata: string | Uint8Array): {
  groups: DecodedBatchGroup[];
  deadline: bigint;
} {
  const bytes = bytesOf(calldata);
  const { plain, budgeted } = selectorsOf();
  const head = bytes.length < 4 ? '' : `0x${bytes.toString('hex', 0, 4)}`;
  if (head !== plain && head !== budgeted) {
    throw new TypeError('not executeBatch calldata');
  }
  const r = new WordReader(bytes.subarray(4));
  const groupsAt = r.size(0);
  const deadline = r.uint(32);
  const groupCount = r.size(groupsAt);
  const groups: DecodedBatchGroup[] = [];
  for (let g = 0; g < groupCount; g++) {
    const group = groupsAt + 32 + r.size(groupsAt + 32 + g * 32);
    const ordersAt = group + r.size(group + 96);
    const orderCount = r.size(ordersAt);
    const orders: DecodedBatchOrder[] = [];
    for (let o = 0; o < orderCount; o++) {
      const at = ordersAt + 32 + r.size(ordersAt + 32 + o * 32);
      orders.push({
        maker: r.address(at),
        index: r.uint(at + 32),
        ref: r.bytes32(at + 64),
        integrator: r.bytes32(at + 96),
        maxDeviationBps: Number(r.uint(at + 128)),
        maxFeeBps: Number(r.uint(at + 160)),
        amountIn: r.uint(at + 192),
        fee: r.uint(at + 224),
        minAmountOut: r.uint(at + 256),
      });
    }
    groups.push({
      tokenIn: getAddress(r.address(group)),
      tokenOut: getAddress(r.address(group + 32)),
      orders,
    });
  }
  return { groups, deadline };
}
