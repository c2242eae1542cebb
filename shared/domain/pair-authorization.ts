import { getAddress } from 'ethers';
import { LRUCache } from 'lru-cache';
import { addressWord, bytes32Word, keccakOfHex, keccakOfText, uintWord } from '../chain/abi-words';
import { checksumAddress } from '../chain/checksum-address';

/**
 * The maker's pair authorization as the OrderExecutor checks it (contracts-abi/src/OrderExecutor.sol): one EIP-712
 * signature per maker, token pair and integrator (API key) serves every limit order and DCA strategy of that pair
 * created with that key. An order created with another key carries another integrator and fails BAD_SIGNATURE. The
 * signature also carries the fee cap the maker accepted (maxFeeBps), so a later raise of the contract's cap does
 * not apply to it.
 */

/** The EIP-712 domain, completed per chain with its chainId and the OrderExecutor as verifyingContract. */
export const PAIR_AUTHORIZATION_DOMAIN = { name: 'TradeAggregationService', version: '1' } as const;

export const PAIR_AUTHORIZATION_TYPES = {
  PairAuthorization: [
    { name: 'maker', type: 'address' },
    { name: 'tokenIn', type: 'address' },
    { name: 'tokenOut', type: 'address' },
    { name: 'integrator', type: 'bytes32' },
    { name: 'maxDeviationBps', type: 'uint16' },
    { name: 'maxFeeBps', type: 'uint16' },
  ],
};

/** OrderExecutor.MAX_FEE_BPS_LIMIT: no cap, the contract's or a signed one, can go above 10% of an order. */
export const MAX_FEE_BPS_LIMIT = 1000;

/**
 * The deviation below the on-chain price bound every authorization signs today: 0 stands for the contract's own
 * bound (fixed at deployment). A maker-chosen tighter bound is a later extension of the order bodies.
 */
export const DEFAULT_MAX_DEVIATION_BPS = 0;

/**
 * The hashes the keeper takes of every order it claims and again of every order it settles (its reference, its
 * integrator, its on-chain id): remembered for the orders of a few waves, as keccak in JS costs tens of microseconds.
 */
const integrators = new LRUCache<string, string>({ max: 10_000, memoMethod: (key) => keccakOfText(key) });
const orderRefs = new LRUCache<string, string>({ max: 50_000, memoMethod: (id) => keccakOfText(id) });
const onchainIds = new LRUCache<string, string>({ max: 20_000, memoMethod: (words) => keccakOfHex(words) });

/** The integrator an API key signs for: keccak256 of the key id's UTF-8 bytes. */
export function integratorOf(apiKey: string): string {
  return integrators.memo(apiKey);
}

/** The domain a maker signs against on one chain. */
export function pairAuthorizationDomain(
  chainId: number,
  orderExecutor: string,
): typeof PAIR_AUTHORIZATION_DOMAIN & { chainId: number; verifyingContract: string } {
  return { ...PAIR_AUTHORIZATION_DOMAIN, chainId, verifyingContract: orderExecutor };
}

/** The domain's own type, listed as `eth_signTypedData_v4` wants it beside the message's types. */
export const EIP712_DOMAIN_TYPE = [
  { name: 'name', type: 'string' },
  { name: 'version', type: 'string' },
  { name: 'chainId', type: 'uint256' },
  { name: 'verifyingContract', type: 'address' },
];

export interface PairAuthorizationMessage {
  maker: string;
  tokenIn: string;
  tokenOut: string;
  /** 0x-prefixed 32-byte hex: integratorOf(the API key id). */
  integrator: string;
  maxDeviationBps: number;
  /**
   * The fee cap the maker accepts, in basis points of an order's amount: the OrderExecutor takes at most the lower
   * of it and its own maxFeeBps, so raising the contract's cap never reaches an authorization signed before.
   */
  maxFeeBps: number;
}

/** One maker's pair authorization as a wallet signs it: the object `eth_signTypedData_v4` takes. */
export interface PairAuthorizationTypedData {
  domain: ReturnType<typeof pairAuthorizationDomain>;
  types: { EIP712Domain: typeof EIP712_DOMAIN_TYPE } & typeof PAIR_AUTHORIZATION_TYPES;
  primaryType: 'PairAuthorization';
  message: PairAuthorizationMessage;
}

/**
 * The message of a maker's pair for one API key, addresses in EIP-55 form (what a wallet shows the maker);
 * `maxFeeBps`: the fee cap offered for signing (the OrderExecutor's current maxFeeBps).
 */
export function pairAuthorizationMessage(
  pair: { maker: string; tokenIn: string; tokenOut: string },
  apiKey: string,
  maxFeeBps: number,
  maxDeviationBps = DEFAULT_MAX_DEVIATION_BPS,
): PairAuthorizationMessage {
  return {
    maker: checksumAddress(pair.maker),
    tokenIn: checksumAddress(pair.tokenIn),
    tokenOut: checksumAddress(pair.tokenOut),
    integrator: integratorOf(apiKey),
    maxDeviationBps,
    maxFeeBps,
  };
}

export function pairAuthorizationTypedData(
  chainId: number,
  orderExecutor: string,
  pair: { maker: string; tokenIn: string; tokenOut: string },
  apiKey: string,
  maxFeeBps: number,
): PairAuthorizationTypedData {
  return {
    domain: pairAuthorizationDomain(chainId, getAddress(orderExecutor)),
    types: { EIP712Domain: EIP712_DOMAIN_TYPE, ...PAIR_AUTHORIZATION_TYPES },
    primaryType: 'PairAuthorization',
    message: pairAuthorizationMessage(pair, apiKey, maxFeeBps),
  };
}

/** The service's reference of an order or DCA iteration on-chain: keccak256 of its id's UTF-8 bytes. */
export function orderRefOf(serviceId: string): string {
  return orderRefs.memo(serviceId);
}

/** The fields of an order OrderExecutor.orderId binds besides its execution index. */
interface OrderFields {
  maker: string;
  tokenIn: string;
  tokenOut: string;
  integrator: string;
  ref: string;
  amountIn: bigint;
}

/**
 * abi.encode(maker, tokenIn, tokenOut, integrator, ref, amountIn) as hex digits: six static words, written by hand
 * (the keeper hashes thousands of ids per block; the tests hold it against ethers' coder).
 */
function orderFieldWords(order: OrderFields): string {
  return (
    addressWord(order.maker) +
    addressWord(order.tokenIn) +
    addressWord(order.tokenOut) +
    bytes32Word(order.integrator) +
    bytes32Word(order.ref) +
    uintWord(order.amountIn)
  );
}

/**
 * What OrderExecutor.orderId binds but the execution index: keccak256(abi.encode(maker, tokenIn, tokenOut,
 * integrator, ref, amountIn)), lowercase. An integrator (the simulator, the end-to-end tests) knows this much of an
 * order it placed; the index is the store's, given at the keeper's first claim. Matched to an event through the
 * batch's calldata: the order there whose orderId (these fields and its index) is the event's id.
 */
export function orderKeyOf(order: OrderFields): string {
  return keccakOfHex(orderFieldWords(order));
}

/** The largest execution index OrderExecutor takes (`uint64`). */
export const MAX_EXECUTION_INDEX = 2n ** 64n - 1n;

/**
 * OrderExecutor.orderId: the on-chain id of one order, bound to its maker, pair (as the contract sees it:
 * checksummed, the native coin as its pseudo-address), integrator, reference, amount and execution index (the
 * order's bit in the contract's executed bitmap, assigned by the store once per order).
 */
export function onchainOrderIdOf(order: OrderFields & { index: bigint }): string {
  return onchainIds.memo(orderFieldWords(order) + uintWord(order.index, 64));
}
