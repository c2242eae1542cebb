/**
 * The `POST /swap` transaction: SwapRouter.swap(SwapParams) calldata for a split found by bestSplit, and its
 * dry run (eth_call from the account) that reports the exact amount the account would receive or why it would
 * revert. Encoding follows contracts-abi/src/SwapRouter.sol and RouteTypes.sol.
 */
import {
  AbiCoder,
  getAddress,
  isCallException,
  type ErrorDescription,
  type Interface,
  type Result,
} from 'ethers';
import type { ChainClient } from '../chain/chain-client';
import { erc20ErrorsInterface, erc20Interface, swapRouterInterface } from '../chain/contract-interfaces';
import { NATIVE_TOKEN_ADDRESS, ZERO_ADDRESS, isNativeAddress } from '../domain/addresses';
import { RpcUnavailableError } from '../chain/rpc-errors';
import type { Split } from './splitting/best-split';
import type { PoolState } from './pools/pool-state';
import {
  HOP_KIND_BALANCER_WEIGHTED,
  HOP_KIND_EXTERNAL,
  HOP_KIND_STABLE_SWAP,
  HOP_KIND_V2,
  HOP_KIND_V3,
  HOP_KIND_V4,
} from './sources/liquidity-source';

const MAX_UINT16 = 0xffff;

const FUNDING_ERRORS = new Set(['ERC20InsufficientAllowance', 'ERC20InsufficientBalance']);
/** Old-style token reverts (OpenZeppelin v4, DAI-like tokens) carry only a message. */
const FUNDING_MESSAGE = /allowance|balance|insufficient/i;
const ERROR_STRING_SELECTOR = '0x08c379a0';

export interface BuildSwapInput {
  swapRouter: string;
  account: string;
  /** An ERC-20 address or NATIVE_TOKEN_ADDRESS, in any casing. */
  tokenIn: string;
  tokenOut: string;
  amountIn: bigint;
  minAmountOut: bigint;
  /** Unix seconds. */
  deadline: bigint;
  integratorFeeBps: number;
  /** Zero address when integratorFeeBps is 0. */
  integratorFeeRecipient: string;
  /** bestSplit's splits, in execution order; their amounts must sum to amountIn. */
  splits: readonly Split[];
}

export interface SwapTransaction {
  to: string;
  data: string;
  /** amountIn when the input is the native coin, else 0. */
  value: bigint;
}

export interface HopParams {
  kind: number;
  tokenOut: string;
  fee: number;
  target: string;
  data: string;
}

export interface PathParams {
  weight: bigint;
  hops: HopParams[];
}

/** The contract's spelling: checksummed addresses, the native pseudo-address as PathExecutor.NATIVE. */
function contractToken(token: string): string {
  return isNativeAddress(token) ? NATIVE_TOKEN_ADDRESS : getAddress(token);
}

const abi = AbiCoder.defaultAbiCoder();

/**
 * The Hop struct through one pool: the contracts find (or check) the pool in their configured venues from what
 * the hop names, never from an address the caller could choose freely.
 */
export function hopOf(pool: PoolState, tokenOut: string): HopParams {
  const hop = { kind: HOP_KIND_V2, tokenOut, fee: 0, target: ZERO_ADDRESS, data: '0x' };
  switch (pool.kind) {
    case 'v2':
      return { ...hop, kind: pool.hopKind ?? HOP_KIND_V2 };
    case 'v3':
      return { ...hop, kind: HOP_KIND_V3, fee: pool.fee };
    case 'v4':
      return { ...hop, kind: HOP_KIND_V4, fee: pool.fee, data: abi.encode(['int24'], [pool.tickSpacing]) };
    case 'balancer-weighted':
      return { ...hop, kind: HOP_KIND_BALANCER_WEIGHTED, data: abi.encode(['bytes32'], [pool.poolId]) };
    case 'stable':
      return { ...hop, kind: HOP_KIND_STABLE_SWAP, target: getAddress(pool.address) };
  }
}

/**
 * One Path per split, weighted by the split's exact input: the router gives path i amountIn·wᵢ/Σw, which is wᵢ
 * exactly when the weights sum to amountIn, so each route carries the amount it was quoted for.
 * Hops name only their output: the router feeds each hop the previous output, starting from the swap's
 * tokenIn (the wrapped native when the input is native), so a route over the wrapped native serves native.
 */
function pathOf(split: Split, tokenIn: string, tokenOut: string): PathParams {
  const { pools, path } = split.route;
  if (pools.length === 0 || path.length !== pools.length + 1) throw new RangeError('malformed route');
  if (!isNativeAddress(tokenIn) && path[0] !== tokenIn.toLowerCase()) {
    throw new RangeError(`route ${split.route.key} does not start at ${tokenIn}`);
  }
  if (!isNativeAddress(tokenOut) && path[path.length - 1] !== tokenOut.toLowerCase()) {
    throw new RangeError(`route ${split.route.key} does not end at ${tokenOut}`);
  }
  const hops = pools.map((pool, i): HopParams => {
    const [hopIn, hopOut] = [path[i]!, path[i + 1]!];
    const tokens = [pool.token0, pool.token1];
    if (hopIn === hopOut || !tokens.includes(hopIn) || !tokens.includes(hopOut)) {
      throw new RangeError(`pool ${pool.address} does not swap ${hopIn} for ${hopOut}`);
    }
    return hopOf(pool, getAddress(hopOut));
  });
  return { weight: split.amountIn, hops };
}

/**
 * RouteTypes.Path structs for splits (SwapRouter.swap and OrderExecutor groups share them). Throws RangeError
 * when the splits do not route tokenIn to tokenOut or do not sum to amountIn.
 */
export function pathsOf(
  splits: readonly Split[],
  tokenIn: string,
  tokenOut: string,
  amountIn: bigint,
): PathParams[] {
  if (splits.length === 0) throw new RangeError('no splits');
  if (splits.some((s) => s.amountIn <= 0n)) throw new RangeError('every split must carry a positive amount');
  if (splits.reduce((sum, s) => sum + s.amountIn, 0n) !== amountIn) {
    throw new RangeError('split amounts must sum to amountIn');
  }
  // With a native side the routes' end tokens cannot be checked against it, but they must agree.
  const starts = new Set(splits.map((s) => s.route.path[0]));
  const ends = new Set(splits.map((s) => s.route.path[s.route.path.length - 1]));
  if (starts.size !== 1 || ends.size !== 1) throw new RangeError('splits do not share their tokens');
  return splits.map((s) => pathOf(s, tokenIn, tokenOut));
}

/**
 * The one path of a swap an external aggregator executes: the router approves tokenIn to `target` (the
 * aggregator's contract, whitelisted by the router's owner), calls it with the aggregator's calldata and measures
 * the tokenOut it received.
 */
export function externalPath(target: string, data: string, tokenOut: string, amountIn: bigint): PathParams {
  return {
    weight: amountIn,
    hops: [
      { kind: HOP_KIND_EXTERNAL, tokenOut: getAddress(tokenOut), fee: 0, target: getAddress(target), data },
    ],
  };
}

/** The SwapRouter.swap transaction the account sends; throws RangeError on inconsistent input. */
export function buildSwapTransaction(input: BuildSwapInput): SwapTransaction {
  const { splits, ...rest } = input;
  if (input.amountIn <= 0n) throw new RangeError('amountIn must be positive');
  return encodeSwap(rest, pathsOf(splits, input.tokenIn, input.tokenOut, input.amountIn));
}

/** The SwapRouter.swap transaction over ready paths (an external aggregator's: externalPath). */
export function buildPathsSwapTransaction(
  input: Omit<BuildSwapInput, 'splits'>,
  paths: PathParams[],
): SwapTransaction {
  if (paths.length === 0) throw new RangeError('no paths');
  return encodeSwap(input, paths);
}

function encodeSwap(input: Omit<BuildSwapInput, 'splits'>, paths: PathParams[]): SwapTransaction {
  const { amountIn } = input;
  if (amountIn <= 0n) throw new RangeError('amountIn must be positive');
  if (input.minAmountOut < 0n || input.deadline < 0n)
    throw new RangeError('negative minAmountOut or deadline');
  if (
    !Number.isInteger(input.integratorFeeBps) ||
    input.integratorFeeBps < 0 ||
    input.integratorFeeBps > MAX_UINT16
  ) {
    throw new RangeError('integratorFeeBps must be a uint16');
  }

  const params = {
    account: getAddress(input.account),
    tokenIn: contractToken(input.tokenIn),
    tokenOut: contractToken(input.tokenOut),
    amountIn,
    minAmountOut: input.minAmountOut,
    deadline: input.deadline,
    integratorFeeBps: input.integratorFeeBps,
    integratorFeeRecipient: getAddress(input.integratorFeeRecipient),
    paths,
  };
  return {
    to: getAddress(input.swapRouter),
    data: swapRouterInterface().encodeFunctionData('swap', [params]),
    value: isNativeAddress(input.tokenIn) ? amountIn : 0n,
  };
}

/** SwapRouter / PathExecutor custom errors, by name, plus the account's funding and anything else. */
export type SwapFailureReason =
  | 'InsufficientOutput'
  | 'Expired'
  | 'NotAccount'
  | 'BadValue'
  | 'BadFee'
  | 'ZeroAmount'
  | 'BadPath'
  | 'PartialFill'
  | 'NotPool'
  | 'SourceNotWhitelisted'
  | 'ForbiddenSource'
  | 'NativeTransferFailed'
  | 'ALLOWANCE_OR_BALANCE'
  | 'REVERTED';

export type SwapSimulation =
  | { ok: true; amountOut: bigint }
  | {
      ok: false;
      reason: SwapFailureReason;
      /** For InsufficientOutput: what the route would pay the account now. */
      amountOut?: bigint;
      /** Human-readable detail (the decoded error, or the raw revert data). */
      message: string;
    };

const ROUTER_REASONS = new Set<string>([
  'InsufficientOutput',
  'Expired',
  'NotAccount',
  'BadValue',
  'BadFee',
  'ZeroAmount',
  'BadPath',
  'PartialFill',
  'NotPool',
  'SourceNotWhitelisted',
  'ForbiddenSource',
  'NativeTransferFailed',
]);

const failure = (reason: SwapFailureReason, message: string, amountOut?: bigint): SwapSimulation =>
  amountOut === undefined ? { ok: false, reason, message } : { ok: false, reason, message, amountOut };

function revertDataOf(err: unknown): string {
  const data = (err as { data?: unknown }).data;
  return typeof data === 'string' && data.startsWith('0x') ? data : '0x';
}

/** Null for empty or malformed revert data (a bare `revert()`, an out-of-gas, a node without revert data). */
function parseErrorSafe(iface: Interface, data: string): ErrorDescription | null {
  if (data.length < 10) return null;
  try {
    return iface.parseError(data);
  } catch {
    return null;
  }
}

function errorString(data: string): string | undefined {
  if (!data.startsWith(ERROR_STRING_SELECTOR)) return undefined;
  try {
    return String(AbiCoder.defaultAbiCoder().decode(['string'], `0x${data.slice(10)}`)[0]);
  } catch {
    return undefined;
  }
}

/**
 * Runs the swap as eth_call from `from`: the exact amount the account would receive at the latest block, or
 * the reason it would revert. A shortfall of the account's input (balance or allowance to the spender) is
 * 'ALLOWANCE_OR_BALANCE', told apart from route failures by reading the funding itself when the token's revert
 * says nothing (WETH9, USDT-like tokens revert without data). RPC outages throw.
 */
export async function simulateSwap(
  client: ChainClient,
  tx: SwapTransaction,
  from: string,
): Promise<SwapSimulation> {
  let returned: string;
  try {
    returned = await client.call({ to: tx.to, data: tx.data, from, value: tx.value });
  } catch (err) {
    if (isCallException(err)) return explainRevert(client, tx, from, revertDataOf(err));
    // Nodes refuse an eth_call whose value exceeds the sender's balance before running it.
    if (tx.value > 0n && /insufficient funds/i.test(String((err as { message?: unknown }).message))) {
      return failure('ALLOWANCE_OR_BALANCE', 'native balance below amountIn');
    }
    throw err;
  }
  return { ok: true, amountOut: swapRouterInterface().decodeFunctionResult('swap', returned)[0] as bigint };
}

async function explainRevert(
  client: ChainClient,
  tx: SwapTransaction,
  from: string,
  data: string,
): Promise<SwapSimulation> {
  const routerError = parseErrorSafe(swapRouterInterface(), data);
  if (routerError && ROUTER_REASONS.has(routerError.name)) {
    const amountOut = routerError.name === 'InsufficientOutput' ? (routerError.args[0] as bigint) : undefined;
    return failure(
      routerError.name as SwapFailureReason,
      describe(routerError.name, routerError.args),
      amountOut,
    );
  }
  const tokenError = parseErrorSafe(erc20ErrorsInterface(), data);
  if (tokenError && FUNDING_ERRORS.has(tokenError.name)) {
    return failure('ALLOWANCE_OR_BALANCE', describe(tokenError.name, tokenError.args));
  }
  const text = errorString(data);
  if (text !== undefined && FUNDING_MESSAGE.test(text)) return failure('ALLOWANCE_OR_BALANCE', text);
  const message = routerError
    ? describe(routerError.name, routerError.args)
    : (text ?? `revert data ${data}`);
  const short = await underfunded(client, tx, from).catch((err: unknown) => {
    // A token that cannot even answer balanceOf is a route problem, not the account's funding.
    if (err instanceof RpcUnavailableError) throw err;
    return false;
  });
  if (short) return failure('ALLOWANCE_OR_BALANCE', message);
  return failure('REVERTED', message);
}

function describe(name: string, args: Result): string {
  return `${name}(${args.map((a: unknown) => String(a)).join(', ')})`;
}

/** Whether `from` lacks the input: native balance, or the ERC-20 balance or allowance to the router's spender. */
async function underfunded(client: ChainClient, tx: SwapTransaction, from: string): Promise<boolean> {
  const params = swapRouterInterface().decodeFunctionData('swap', tx.data)[0] as Result;
  const tokenIn = params.getValue('tokenIn') as string;
  const amountIn = params.getValue('amountIn') as bigint;
  if (isNativeAddress(tokenIn)) {
    const balance = BigInt(String(await client.send('eth_getBalance', [from, 'latest'])));
    return balance < amountIn;
  }
  const read = async (iface: Interface, to: string, fn: string, args: unknown[]): Promise<unknown> =>
    iface.decodeFunctionResult(fn, await client.call({ to, data: iface.encodeFunctionData(fn, args) }))[0];
  const spender = (await read(swapRouterInterface(), tx.to, 'spender', [])) as string;
  const [balance, allowance] = (await Promise.all([
    read(erc20Interface(), tokenIn, 'balanceOf', [from]),
    read(erc20Interface(), tokenIn, 'allowance', [from, spender]),
  ])) as [bigint, bigint];
  return balance < amountIn || allowance < amountIn;
}
