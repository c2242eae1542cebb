import { setTimeout as sleep } from 'node:timers/promises';
import {
  Contract,
  getAddress,
  id as keccakOfText,
  parseUnits,
  Wallet,
  type JsonRpcProvider,
  type Provider,
  type TransactionReceipt,
} from 'ethers';
import type { DcaOrderJson, DcaStrategyJson } from '../../shared/domain/dca-json';
import type { LimitOrderResponse } from '../../shared/domain/limit-order-json';
import { devnetKeys } from '../../devnet/keys';
import type { ManifestChain, ManifestToken } from '../../devnet/manifest';
import { movePrice } from '../../devnet/market-mover';
import { mined } from '../../devnet/wait-for-receipt';
import { V2_ROUTER_ABI, V3_QUOTER_V2_ABI } from '../../devnet/world/abis';
import { DEFAULT_MAX_FEE_BPS } from '../../devnet/world/deploy-service-contracts';
import {
  orderKeyOf,
  PAIR_AUTHORIZATION_DOMAIN,
  PAIR_AUTHORIZATION_TYPES,
} from '../../shared/domain/pair-authorization';
import { ERC20_ABI, orderExecutorInterface } from '../../shared/chain/contract-interfaces';
import { plainDecimalOf } from '../../shared/domain/amount-bounds';
import { dcaStrategyBody, dcaStrategyTokens, type DcaStrategyRequest } from '../factories/dca-strategies';
import { limitOrderBody, limitOrderTokens, type LimitOrderRequest } from '../factories/limit-orders';
import type { ApiClient, ApiResponse, Envelope } from './api-client';
import { keyOfEvent, keysOfTransaction } from './batch-keys';

// The request types live with their factories; the e2e suites still import them from here.
export type { DcaStrategyRequest, LimitOrderRequest };

/**
 * The maker's side of limit orders and DCA as the spec and the README describe it, for end-to-end tests: an
 * EIP-712 pair signature, an ERC-20 allowance to the OrderExecutor, orders created through the public API, and
 * the chain read back (balances, receipts, OrderExecutor events) to check what really happened.
 */

/** A fixed limit: approvals then never depend on eth_estimateGas against a busy devnet. */
const APPROVE_GAS = 100_000n;

/** Responses as the api writes them (the spec's field tables). */
export type LimitOrderJson = LimitOrderResponse;
export type { DcaOrderJson, DcaStrategyJson };

/**
 * One OrderExecuted event, as the chain reports it: `onchainId` is the key (onchainIdOf) of the order of its
 * transaction's calldata whose OrderExecutor.orderId is the event's id, and the pair is that order's group's.
 */
export interface OrderExecutedEvent {
  onchainId: string;
  maker: string;
  tokenIn: string;
  tokenOut: string;
  amountIn: bigint;
  fee: bigint;
  amountOut: bigint;
}

export function token(chain: ManifestChain, symbol: string): ManifestToken {
  const found = chain.tokens.find((t) => t.symbol === symbol);
  if (!found) throw new Error(`no ${symbol} on chain ${chain.chainId}`);
  return found;
}

/** The manifest's test accounts (never the keeper's executors), connected to the chain. */
export function makerWallets(chain: ManifestChain, provider: JsonRpcProvider): Wallet[] {
  return chain.accounts.map((a) => new Wallet(a.privateKey, provider));
}

/** The integrator an API key id stands for on-chain: keccak256 of the key id's UTF-8 bytes (lowercase hex). */
export function integratorOfKey(apiKey: string): string {
  return keccakOfText(apiKey).toLowerCase();
}

/**
 * The maker's pair authorization for the orders one API key creates: EIP-712 over {maker, tokenIn, tokenOut,
 * integrator = keccak256(key id), maxDeviationBps = 0 (the contract's own bound), maxFeeBps}, domain bound to the
 * OrderExecutor. `apiKey` is the key id of the account that creates the orders (an ApiClient's
 * `credentials.apiKey`); an order created with another key fails BAD_SIGNATURE. `signedMaxFeeBps` defaults to the
 * OrderExecutor's cap now, read through the signer's provider (what GET /order-authorization offers; an order
 * created without `maxFeeBps` is checked against it).
 */
export async function signPair(
  signer: Wallet,
  chain: ManifestChain,
  maker: string,
  tokenIn: string,
  tokenOut: string,
  apiKey: string,
  signedMaxFeeBps?: number,
): Promise<string> {
  // A signer without a provider signs the cap every devnet deploys with.
  const feeBps =
    signedMaxFeeBps ??
    (signer.provider ? Number(await maxFeeBps(signer.provider, chain)) : DEFAULT_MAX_FEE_BPS);
  return signer.signTypedData(
    {
      ...PAIR_AUTHORIZATION_DOMAIN,
      chainId: chain.chainId,
      verifyingContract: chain.contracts.orderExecutor,
    },
    PAIR_AUTHORIZATION_TYPES,
    {
      maker: getAddress(maker),
      tokenIn: getAddress(tokenIn),
      tokenOut: getAddress(tokenOut),
      integrator: integratorOfKey(apiKey),
      maxDeviationBps: 0,
      maxFeeBps: feeBps,
    },
  );
}

/** Sets (not adds to) the maker's allowance to the OrderExecutor. */
export async function approveExecutor(
  maker: Wallet,
  chain: ManifestChain,
  tokenAddress: string,
  amount: bigint,
): Promise<void> {
  const erc20 = new Contract(tokenAddress, ERC20_ABI, maker);
  const tx = await erc20.getFunction('approve')(chain.contracts.orderExecutor, amount, {
    gasLimit: APPROVE_GAS,
  });
  await mined(tx, `approve by ${maker.address}`);
}

export async function balanceOf(
  provider: JsonRpcProvider,
  tokenAddress: string,
  owner: string,
): Promise<bigint> {
  return (await new Contract(tokenAddress, ERC20_ABI, provider).getFunction('balanceOf')(owner)) as bigint;
}

/** The OrderExecutor's fee cap in basis points of an order's amount. */
export async function maxFeeBps(provider: Pick<Provider, 'call'>, chain: ManifestChain): Promise<bigint> {
  const data = await provider.call({
    to: chain.contracts.orderExecutor,
    data: orderExecutorInterface().encodeFunctionData('maxFeeBps', []),
  });
  return BigInt(orderExecutorInterface().decodeFunctionResult('maxFeeBps', data)[0] as bigint);
}

/** floor(amount × bps / 10,000): the contract's own cap arithmetic. */
export function feeCap(amountIn: bigint, bps: bigint): bigint {
  return (amountIn * bps) / 10_000n;
}

/** What an order's on-chain id is made of, as the service created it. */
export interface OnchainOrder {
  /** The service id (limit order id or DCA order id). */
  id: string;
  /** The key id of the API account that created the order (or its strategy). */
  apiKey: string;
  maker: string;
  tokenIn: string;
  tokenOut: string;
  /** What the order (or DCA iteration) sells, in base units. */
  amountIn: bigint;
}

/**
 * The on-chain key of a service order (lowercase): what OrderExecutor.orderId binds but the execution index, which
 * the store gives the order at the keeper's first claim and the API does not show — keccak256(abi.encode(maker,
 * tokenIn, tokenOut, integrator, ref, amountIn)) with integrator = keccak256(API key id) and ref = keccak256(service
 * id). Events are matched to it through their transaction's calldata (executionEvents, helpers/batch-keys).
 */
export function onchainIdOf(order: OnchainOrder): string {
  return orderKeyOf({
    maker: order.maker,
    tokenIn: order.tokenIn,
    tokenOut: order.tokenOut,
    integrator: integratorOfKey(order.apiKey),
    ref: keccakOfText(order.id),
    amountIn: order.amountIn,
  });
}

/**
 * onchainIdOf a limit order of `chain` as the API answers it, created with `apiKey`; `amount` (a JSON number) is
 * read back in base units of the sold token (the suites use amounts a double holds exactly).
 */
export function limitOrderOnchainId(order: LimitOrderJson, apiKey: string, chain: ManifestChain): string {
  const tokenIn = chain.tokens.find((t) => t.address.toLowerCase() === order.inTokenAddress.toLowerCase());
  if (!tokenIn) throw new Error(`no token ${order.inTokenAddress} on chain ${chain.chainId}`);
  return onchainIdOf({
    id: order.id,
    apiKey,
    maker: order.accountTo,
    tokenIn: order.inTokenAddress,
    tokenOut: order.outTokenAddress,
    amountIn: parseUnits(plainDecimalOf(order.amount), tokenIn.decimals),
  });
}

/**
 * OrderExecuted and OrderFailed events of a mined transaction, emitted by the chain's OrderExecutor, each under the
 * key of the order of the transaction's calldata its id names (throws for an event no order of it explains).
 */
export async function executionEvents(
  provider: JsonRpcProvider,
  chain: ManifestChain,
  txHash: string,
): Promise<{
  receipt: TransactionReceipt;
  executed: OrderExecutedEvent[];
  failed: { onchainId: string; reason: string }[];
}> {
  const receipt = await provider.getTransactionReceipt(txHash);
  if (!receipt) throw new Error(`no receipt for ${txHash}`);
  const keys = await keysOfTransaction(provider, txHash);
  const executed: OrderExecutedEvent[] = [];
  const failed: { onchainId: string; reason: string }[] = [];
  for (const log of receipt.logs) {
    if (log.address.toLowerCase() !== chain.contracts.orderExecutor.toLowerCase()) continue;
    const parsed = orderExecutorInterface().parseLog({ topics: [...log.topics], data: log.data });
    if (parsed?.name === 'OrderExecuted') {
      const order = keyOfEvent(keys, String(parsed.args.getValue('id')), txHash);
      executed.push({
        onchainId: order.key,
        maker: String(parsed.args.getValue('maker')),
        tokenIn: order.tokenIn,
        tokenOut: order.tokenOut,
        amountIn: parsed.args.getValue('amountIn') as bigint,
        fee: parsed.args.getValue('fee') as bigint,
        amountOut: parsed.args.getValue('amountOut') as bigint,
      });
    } else if (parsed?.name === 'OrderFailed') {
      failed.push({
        onchainId: keyOfEvent(keys, String(parsed.args.getValue('id')), txHash).key,
        reason: String(parsed.args.getValue('reason')),
      });
    }
  }
  return { receipt, executed, failed };
}

/** A decimal string as value / 10^scale. */
function rational(decimal: string): { value: bigint; scale: bigint } {
  const match = /^(\d+)(?:\.(\d+))?$/.exec(decimal);
  if (!match) throw new Error(`not a decimal string: ${decimal}`);
  const fraction = match[2] ?? '';
  return { value: BigInt(`${match[1]}${fraction}`), scale: 10n ** BigInt(fraction.length) };
}

/**
 * Whether `received` (out base units) is at least amount × priceTrigger × (1 − slippage/100), compared as exact
 * rationals: no rounding can make a short payout pass.
 */
export function coversLimitMinimum(args: {
  received: bigint;
  amountIn: bigint;
  priceTrigger: string;
  slippage: string;
  decimalsIn: number;
  decimalsOut: number;
}): boolean {
  const p = rational(args.priceTrigger);
  const s = rational(args.slippage);
  // received ≥ amountIn/10^dIn × p/ps × 10^dOut × (100·ss − s)/(100·ss)
  const numerator = args.amountIn * p.value * 10n ** BigInt(args.decimalsOut) * (100n * s.scale - s.value);
  const denominator = 10n ** BigInt(args.decimalsIn) * p.scale * 100n * s.scale;
  return args.received * denominator >= numerator;
}

/**
 * The market price of tokenIn in tokenOut (out per 1 in, net of the pools' fees) read from the chain itself: the
 * best direct output of the V2 pool and the V3 pools (fee 500 and 3000) for a probe of 0.01 token, so price
 * impact does not count. Read from the chain rather than POST /quotes because the api's pool cache follows the
 * chain a poll behind, and a test that just moved the market needs the price of now.
 */
export async function marketPrice(
  provider: JsonRpcProvider,
  chain: ManifestChain,
  tokenIn: ManifestToken,
  tokenOut: ManifestToken,
): Promise<number> {
  const probe = 10n ** BigInt(tokenIn.decimals - 2);
  const router = new Contract(chain.contracts.uniswapV2Router02, V2_ROUTER_ABI, provider);
  const quoter = new Contract(chain.contracts.uniswapV3QuoterV2, V3_QUOTER_V2_ABI, provider);
  const outs = await Promise.all([
    router
      .getFunction('getAmountsOut')
      .staticCall(probe, [tokenIn.address, tokenOut.address])
      .then((amounts: bigint[]) => amounts[amounts.length - 1]!),
    ...[500, 3000].map((fee) =>
      quoter
        .getFunction('quoteExactInputSingle')
        .staticCall({
          tokenIn: tokenIn.address,
          tokenOut: tokenOut.address,
          amountIn: probe,
          fee,
          sqrtPriceLimitX96: 0n,
        })
        .then((r: [bigint]) => r[0]),
    ),
  ]);
  const best = outs.reduce((a, b) => (a > b ? a : b));
  return Number(best) / 10 ** tokenOut.decimals / (Number(probe) / 10 ** tokenIn.decimals);
}

/** A price as a decimal string with `digits` decimals (priceTrigger, price). */
export function priceString(price: number, digits = 2): string {
  return price.toFixed(digits);
}

/**
 * Moves BASE/QUOTE on every pool of the pair the keeper routes over (V2, V3 fee 500 and 3000) by the same
 * fraction, with the market mover's own account. Returns the block of the last move.
 */
export async function moveMarket(
  provider: JsonRpcProvider,
  chain: ManifestChain,
  pair: string,
  by: number,
): Promise<number> {
  const signer = devnetKeys(0).mover.connect(provider);
  const world = { chainId: chain.chainId, contracts: chain.contracts, tokens: chain.tokens };
  let last = '';
  for (const pool of [
    { dex: 'v2' as const },
    { dex: 'v3' as const, fee: 500 },
    { dex: 'v3' as const, fee: 3000 },
  ]) {
    const moved = await movePrice({ provider, chainId: chain.chainId, world, pair, by, signer, ...pool });
    last = moved.txHash;
  }
  const receipt = await provider.getTransactionReceipt(last);
  if (!receipt) throw new Error(`no receipt for the market move ${last}`);
  return receipt.blockNumber;
}

/** Calls `read` until `done` holds or the deadline passes; the last value is in the error. */
export async function pollUntil<T>(
  what: string,
  read: () => Promise<T>,
  done: (value: T) => boolean,
  opts: { timeoutMs?: number; intervalMs?: number } = {},
): Promise<T> {
  const deadline = Date.now() + (opts.timeoutMs ?? 20_000);
  let last: T | undefined;
  for (;;) {
    last = await read();
    if (done(last)) return last;
    if (Date.now() > deadline) {
      throw new Error(`timed out waiting for ${what}; last value: ${JSON.stringify(last)}`);
    }
    await sleep(opts.intervalMs ?? 200);
  }
}

function dataOf<T>(res: ApiResponse<Envelope<T>>, what: string): T {
  if (res.status !== 200 || res.body.success !== true || res.body.data === undefined) {
    throw new Error(`${what}: ${res.status} ${res.text}`);
  }
  return res.body.data;
}

const NO_REFERENCE_PRICE = /^Not exist reference price for this pair/;

/**
 * POST /limit-order. The spec says a missing reference price "can be temporary" (the keeper publishes prices
 * from its first block on): that 400 creates nothing, so only it is retried.
 */
export async function createLimitOrder(
  client: ApiClient,
  body: LimitOrderRequest,
  timeoutMs = 60_000,
): Promise<LimitOrderJson> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const res = await client.post<LimitOrderJson>('/limit-order', body);
    const waiting = res.status === 400 && NO_REFERENCE_PRICE.test(res.body.error?.message ?? '');
    if (!waiting || Date.now() > deadline) return dataOf(res, 'POST /limit-order');
    await sleep(200);
  }
}

/** A maker selling `tokenIn` for `tokenOut`, in a limit order or a DCA strategy. */
export interface MakerPair {
  maker: Wallet;
  tokenIn: ManifestToken;
  tokenOut: ManifestToken;
}

/** The maker's pair authorization (signPair) for the orders `client` creates. */
function signPairFor(
  client: ApiClient,
  chain: ManifestChain,
  { maker, tokenIn, tokenOut }: MakerPair,
): Promise<string> {
  return signPair(maker, chain, maker.address, tokenIn.address, tokenOut.address, client.credentials.apiKey);
}

/**
 * A POST /limit-order body as the maker sends it through `client`: `amount` of tokenIn for tokenOut at
 * `priceTrigger` (the price too), expiring in an hour, gas price 1, 1% slippage, the pair signed for the client's
 * key. `over` replaces fields.
 */
export async function signedLimitOrderBody(
  client: ApiClient,
  chain: ManifestChain,
  order: MakerPair & { amount: string; priceTrigger: string },
  over: Partial<LimitOrderRequest> = {},
): Promise<LimitOrderRequest> {
  return limitOrderBody({
    accountTo: order.maker.address,
    chainId: chain.chainId,
    ...limitOrderTokens(order.tokenIn, order.tokenOut),
    amount: order.amount,
    priceTrigger: order.priceTrigger,
    price: order.priceTrigger,
    expired: String(Date.now() + 3_600_000),
    gasPrice: '1',
    slippage: '1',
    signature: await signPairFor(client, chain, order),
    ...over,
  });
}

/**
 * A POST /dca-order/strategies body as the maker sends it through `client`: `totalAmount` of tokenIn into tokenOut
 * in `iterations` orders `frequency` seconds apart, 1% slippage, the pair signed for the client's key. `over`
 * replaces fields.
 */
export async function signedStrategyBody(
  client: ApiClient,
  chain: ManifestChain,
  strategy: MakerPair & Pick<DcaStrategyRequest, 'totalAmount' | 'iterations' | 'frequency'>,
  over: Partial<DcaStrategyRequest> = {},
): Promise<DcaStrategyRequest> {
  return dcaStrategyBody({
    accountTo: strategy.maker.address,
    chainIdFrom: chain.chainId,
    chainIdTo: chain.chainId,
    ...dcaStrategyTokens(strategy.tokenIn, strategy.tokenOut),
    totalAmount: strategy.totalAmount,
    iterations: strategy.iterations,
    frequency: strategy.frequency,
    slippage: 1,
    signature: await signPairFor(client, chain, strategy),
    ...over,
  });
}

/**
 * Waits until POST /limit-order accepts the pair (the keeper has published its reference price): creates an
 * order no market reaches and cancels it at once.
 */
export async function waitUntilPairAccepted(
  client: ApiClient,
  chain: ManifestChain,
  maker: Wallet,
  tokenIn: ManifestToken,
  tokenOut: ManifestToken,
  timeoutMs = 90_000,
): Promise<void> {
  const unreachable = '1000000000';
  const probe = await createLimitOrder(
    client,
    await signedLimitOrderBody(client, chain, {
      maker,
      tokenIn,
      tokenOut,
      amount: '1',
      priceTrigger: unreachable,
    }),
    timeoutMs,
  );
  dataOf(await client.delete<LimitOrderJson>(`/limit-order/${probe.id}`), 'DELETE /limit-order (probe)');
}

export async function getLimitOrder(client: ApiClient, id: string): Promise<LimitOrderJson> {
  return dataOf(await client.get<LimitOrderJson>(`/limit-order/${id}`), `GET /limit-order/${id}`);
}

export async function waitForLimitOrder(
  client: ApiClient,
  id: string,
  statuses: readonly string[],
  timeoutMs = 20_000,
): Promise<LimitOrderJson> {
  return pollUntil(
    `limit order ${id} to be ${statuses.join(' or ')}`,
    () => getLimitOrder(client, id),
    (o) => statuses.includes(o.status),
    { timeoutMs },
  );
}

export async function createStrategy(client: ApiClient, body: DcaStrategyRequest): Promise<DcaStrategyJson> {
  return dataOf(
    await client.post<DcaStrategyJson>('/dca-order/strategies', body),
    'POST /dca-order/strategies',
  );
}

export async function getStrategy(client: ApiClient, id: string): Promise<DcaStrategyJson> {
  return dataOf(
    await client.get<DcaStrategyJson>(`/dca-order/strategies/${id}`),
    `GET /dca-order/strategies/${id}`,
  );
}

export async function strategyOrders(client: ApiClient, id: string): Promise<DcaOrderJson[]> {
  return dataOf(
    await client.get<DcaOrderJson[]>(`/dca-order/strategies/${id}/orders`),
    `GET /dca-order/strategies/${id}/orders`,
  );
}

/** Base units of a human amount (the tests choose amounts the token's decimals hold exactly). */
export function baseUnits(amount: string, t: ManifestToken): bigint {
  return parseUnits(amount, t.decimals);
}
