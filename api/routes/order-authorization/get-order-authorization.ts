import { getAddress } from 'ethers';
import type { ChainClient } from '../../../shared/chain/chain-client';
import type { ChainRegistry } from '../../../shared/chain/chain-registry';
import type { GasPriceReader } from '../../../shared/chain/gas-price-reader';
import { ServiceError, ValidationError, type ErrorDetail } from '../../../shared/domain/errors';
import {
  pairAuthorizationTypedData,
  type PairAuthorizationTypedData,
} from '../../../shared/domain/pair-authorization';
import { isValidMakerSignature, isValidPairSignature } from '../../../shared/domain/pair-signature';
import { BATCH_BASE_GAS, GAS_PER_ORDER, executionFee } from '../../../shared/routing/execution-fee';
import type { Prices } from '../../../shared/routing/prices/usd-prices';
import type { Store } from '../../../shared/store/store';
import { defineRoute, type RouteDefinition } from '../../http/route-definition';
import { signingKeyOf } from '../../http/signing-key';
import { INVALID_QUERY, type RequestValidator } from '../../http/validator';
import { readMakerTokenState } from './maker-token-state';
import { OPEN_LIMIT_ORDER_STATUSES, requiredAllowance } from './required-allowance';
import { orderAuthorizationParameters, orderAuthorizationQuery, orderAuthorizationSchema } from './schemas';

export interface OrderAuthorizationDeps {
  chains: ChainRegistry;
  store: Pick<Store, 'tokens' | 'limitOrders' | 'dca'>;
  validator: RequestValidator;
  clients: { find(chainId: number): ChainClient | undefined };
  /** Prices the execution fee in the sold token; absent, every order is counted at the contract's fee cap. */
  prices?: Prices;
  gasPrices?: Pick<GasPriceReader, 'effectiveGasPrice'>;
}

interface OrderAuthorizationQuery {
  chainId: string;
  accountTo: string;
  tokenIn: string;
  tokenOut: string;
}

export interface OrderAuthorization {
  chainId: number;
  accountTo: string;
  tokenIn: string;
  tokenOut: string;
  spender: string;
  typedData: PairAuthorizationTypedData;
  allowance: string;
  balance: string;
  required: string;
  estimatedFeePerOrder: string | null;
  maxFeeBps: number;
  openLimitOrders: number;
  activeStrategies: number;
  validSignatureHeld: boolean;
}

/** A lone order pays the batch's fixed gas too: the estimate is for the worst case, an order executed alone. */
const LONE_ORDER_GAS = GAS_PER_ORDER + BATCH_BASE_GAS;
const UNCAPPED = 2n ** 255n;

function capOf(amountIn: bigint, maxFeeBps: bigint): bigint {
  return (amountIn / 10_000n) * maxFeeBps + ((amountIn % 10_000n) * maxFeeBps) / 10_000n;
}

export function orderAuthorizationRoute(deps: OrderAuthorizationDeps): RouteDefinition {
  /** The fee of one lone order before the contract's cap; undefined when the token cannot be priced. */
  const uncappedFee = async (
    chainId: number,
    tokenIn: { address: string; decimals: number },
    chain: { wrappedNative: string; nativeDecimals: number },
  ): Promise<bigint | undefined> => {
    if (!deps.gasPrices) return undefined;
    let gasPriceWei: bigint;
    try {
      gasPriceWei = await deps.gasPrices.effectiveGasPrice(chainId);
    } catch {
      return undefined;
    }
    const sameAsNative = tokenIn.address.toLowerCase() === chain.wrappedNative.toLowerCase();
    if (sameAsNative) return LONE_ORDER_GAS * gasPriceWei;
    if (!deps.prices) return undefined;
    return executionFee({
      prices: deps.prices,
      chainId,
      tokenIn,
      wrappedNative: chain.wrappedNative,
      nativeDecimals: chain.nativeDecimals,
      // No cap here: the cap depends on each order's amount and is applied per order.
      amountIn: UNCAPPED,
      gasPerOrder: LONE_ORDER_GAS,
      gasPriceWei,
      maxFeeBps: 10_000n,
    });
  };

  return defineRoute<undefined>({
    method: 'GET',
    path: '/order-authorization',
    auth: 'signed',
    doc: {
      tag: 'Limit orders',
      summary: "The maker's authorization: what to approve and what to sign for limit orders and DCA",
      description:
        'Everything a maker needs before its orders can execute: the order contract to approve `tokenIn` to ' +
        '(`spender`), the EIP-712 pair authorization to sign (`typedData`, with the fee cap it accepts), the ' +
        "current allowance and balance, and what this API key's open orders and active strategies of this maker " +
        'selling `tokenIn` already need. ' +
        'The allowance must cover `required` plus each new order’s amount and execution fee. A chain without an ' +
        'order contract answers 400.',
      parameters: orderAuthorizationParameters,
      response: orderAuthorizationSchema,
      errors: [400, 500],
    },
    async handle({ query, auth }): Promise<OrderAuthorization> {
      const q = deps.validator.assert<OrderAuthorizationQuery>(
        orderAuthorizationQuery,
        query,
        INVALID_QUERY,
        'query',
      );
      const chainId = Number(q.chainId);
      const chain = deps.chains.get(chainId);
      if (!chain) {
        const message = `Chain ${chainId} is not enabled`;
        throw new ValidationError(message, [{ field: 'chainId', message }]);
      }
      const contracts = chain.contracts;
      if (!contracts) {
        const message = `Limit orders and DCA do not execute on chain ${chainId} (it has no order contract)`;
        throw new ValidationError(INVALID_QUERY, [{ field: 'chainId', message }]);
      }
      const [tokenIn, tokenOut] = await Promise.all([
        deps.store.tokens.find(chainId, q.tokenIn),
        deps.store.tokens.find(chainId, q.tokenOut),
      ]);
      const details: ErrorDetail[] = [];
      const listed = `Must be a token listed for chain ${chainId} (see GET /tokens)`;
      if (!tokenIn) details.push({ field: 'tokenIn', message: listed });
      if (!tokenOut) details.push({ field: 'tokenOut', message: listed });
      if (q.tokenIn.toLowerCase() === q.tokenOut.toLowerCase()) {
        details.push({ field: 'tokenOut', message: 'Must differ from tokenIn' });
      }
      if (details.length || !tokenIn) throw new ValidationError(INVALID_QUERY, details);

      const pair = { maker: q.accountTo, tokenIn: q.tokenIn, tokenOut: q.tokenOut };
      const apiKey = signingKeyOf(auth);
      const client = deps.clients.find(chainId);
      const readState = async () => {
        if (!client) throw new Error(`no RPC client for chain ${chainId}`);
        return readMakerTokenState(client, contracts, getAddress(pair.maker), getAddress(pair.tokenIn));
      };
      const [state, limitOrders, strategies, feeEstimate] = await Promise.all([
        readState().catch(() => {
          throw new ServiceError(
            'INTERNAL_ERROR',
            500,
            `Could not read the maker's allowance on chain ${chainId}; try again`,
          );
        }),
        deps.store.limitOrders.listOfMakerSelling(apiKey, { chainId, ...pair }, OPEN_LIMIT_ORDER_STATUSES),
        deps.store.dca.listOfMakerSelling(apiKey, { chainId, ...pair }),
        uncappedFee(chainId, { address: tokenIn.address, decimals: tokenIn.decimals }, chain),
      ]);
      const maxFeeBps = Number(state.maxFeeBps);
      // Granted to the calling key (an order another key creates with this signature fails BAD_SIGNATURE), for the
      // contract's cap now: a later raise does not reach it.
      const typedData = pairAuthorizationTypedData(chainId, contracts.orderExecutor, pair, apiKey, maxFeeBps);
      const fee = (amountIn: bigint): bigint => {
        const cap = capOf(amountIn, state.maxFeeBps);
        return feeEstimate === undefined || feeEstimate > cap ? cap : feeEstimate;
      };
      const { required, openLimitOrders, activeStrategies } = requiredAllowance({
        limitOrders,
        strategies,
        decimals: tokenIn.decimals,
        fee,
      });
      const outLower = q.tokenOut.toLowerCase();
      // Each signature with the cap its order was created with (none given: the keeper assumes the current one).
      const held = new Map<string, { signature: string; maxFeeBps: number }>();
      for (const h of [
        ...limitOrders.filter((o) => o.outTokenAddress.toLowerCase() === outLower),
        ...strategies.filter((s) => s.tokenAddressTo.toLowerCase() === outLower),
      ]) {
        const signed = { signature: h.signature, maxFeeBps: h.maxFeeBps ?? maxFeeBps };
        held.set(`${signed.maxFeeBps}|${signed.signature}`, signed);
      }
      const checks = await Promise.all(
        [...held.values()].map(({ signature, maxFeeBps: signedMaxFeeBps }) => {
          const authorization = {
            chainId,
            orderExecutor: contracts.orderExecutor,
            ...typedData.message,
            maxFeeBps: signedMaxFeeBps,
            signature,
          };
          // A contract wallet's signature is its isValidSignature's answer; no answer counts as not held.
          return client
            ? isValidMakerSignature(authorization, client).catch(() => false)
            : isValidPairSignature(authorization);
        }),
      );
      const validSignatureHeld = checks.some(Boolean);
      return {
        chainId,
        accountTo: q.accountTo,
        tokenIn: typedData.message.tokenIn,
        tokenOut: typedData.message.tokenOut,
        spender: getAddress(contracts.orderExecutor),
        typedData,
        allowance: state.allowance.toString(),
        balance: state.balance.toString(),
        required: required.toString(),
        estimatedFeePerOrder: feeEstimate === undefined ? null : feeEstimate.toString(),
        maxFeeBps,
        openLimitOrders,
        activeStrategies,
        validSignatureHeld,
      };
    },
  });
}
