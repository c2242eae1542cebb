import { randomUUID } from 'node:crypto';
import type { ErrorDetail } from '../../../shared/domain/errors';
import { ValidationError } from '../../../shared/domain/errors';
import { newPendingLimitOrder, type LimitOrderInput } from '../../../shared/domain/limit-order';
import type { TokensRepository } from '../../../shared/store/repositories/tokens-repository';
import { defineRoute, type RouteDefinition } from '../../http/route-definition';
import { INVALID_BODY } from '../../http/validator';
import type { RouteDeps } from '../route-deps';
import { limitOrderResponse } from '../../../shared/domain/limit-order-json';
import { expiredDetails, orderAmountDetails } from './order-field-rules';
import { signingKeyOf } from '../../http/signing-key';
import { assertReferencePrice } from './reference-price';
import { createLimitOrderBody, limitOrderSchema } from './schemas';

/** The body once the schema passed; unknown fields may still be present (they are ignored). */
type CreateLimitOrderBody = LimitOrderInput & Record<string, unknown>;

const ALL_AMOUNTS: ReadonlySet<string> = new Set(['amount', 'priceTrigger', 'price']);

/** Both tokens must be listed for the chain (their decimals bound the amount and prices) and must differ. */
async function tokenDetails(tokens: TokensRepository, body: CreateLimitOrderBody): Promise<ErrorDetail[]> {
  const details: ErrorDetail[] = [];
  const listed = `Must be a token listed for chain ${body.chainId} (see GET /tokens)`;
  const [inToken, outToken] = await Promise.all([
    tokens.find(body.chainId, body.inTokenAddress),
    tokens.find(body.chainId, body.outTokenAddress),
  ]);
  if (!inToken) details.push({ field: 'inTokenAddress', message: listed });
  if (!outToken) details.push({ field: 'outTokenAddress', message: listed });
  if (body.inTokenAddress.toLowerCase() === body.outTokenAddress.toLowerCase()) {
    details.push({ field: 'outTokenAddress', message: 'Must differ from inTokenAddress' });
  }
  details.push(...orderAmountDetails(body, ALL_AMOUNTS, inToken, outToken));
  return details;
}

export function createLimitOrderRoute(deps: RouteDeps): RouteDefinition {
  return defineRoute<CreateLimitOrderBody>({
    method: 'POST',
    path: '/limit-order',
    auth: 'signed',
    body: createLimitOrderBody,
    doc: {
      tag: 'Limit orders',
      summary: 'Create a limit order',
      description:
        'Creates a pending order; every success creates a new one, so after a timeout list orders before retrying. ' +
        'Without a reference price for the pair the answer is 400 `Not exist reference price for this pair A/B` ' +
        '(can be temporary).',
      response: limitOrderSchema,
      errors: [400, 500],
    },
    async handle({ body, auth }) {
      const apiKey = signingKeyOf(auth);
      const now = deps.now();
      const details: ErrorDetail[] = [];
      const chain = deps.chains.get(body.chainId);
      if (chain) details.push(...(await tokenDetails(deps.store.tokens, body)));
      else details.push({ field: 'chainId', message: `Chain ${body.chainId} is not enabled` });
      details.push(...expiredDetails(body.expired, now));
      if (details.length || !chain) throw new ValidationError(INVALID_BODY, details);

      await assertReferencePrice(
        {
          referencePrices: deps.store.referencePrices,
          tokens: deps.store.tokens,
          market: deps.quotes?.engine,
        },
        chain,
        body.tokenASymbol,
        body.tokenBSymbol,
      );
      // Only the fields the spec defines are taken from the body; anything else the client sent is ignored.
      const order = newPendingLimitOrder(randomUUID(), apiKey, body, now);
      await deps.store.limitOrders.insert(order);
      return limitOrderResponse(order);
    },
  });
}
