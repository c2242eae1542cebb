import { NotFoundError, ValidationError } from '../../../shared/domain/errors';
import type { LimitOrderChanges } from '../../../shared/domain/limit-order';
import { defineRoute, type RouteDefinition } from '../../http/route-definition';
import { INVALID_BODY } from '../../http/validator';
import type { RouteDeps } from '../route-deps';
import { limitOrderResponse } from '../../../shared/domain/limit-order-json';
import { emptyChangeSetDetails, expiredDetails, orderAmountDetails } from './order-field-rules';
import { LIMIT_ORDER_NOT_FOUND, orderFromWrite } from './pending-write';
import { signingKeyOf } from '../../http/signing-key';
import { limitOrderIdParameter, limitOrderSchema, updateLimitOrderBody } from './schemas';

type UpdateLimitOrderBody = LimitOrderChanges & Record<string, unknown>;

const AMOUNT_FIELDS = ['amount', 'priceTrigger', 'price'] as const;

function changesOf(body: UpdateLimitOrderBody): LimitOrderChanges {
  const { priceTrigger, price, amount, expired, slippage, gasPrice } = body;
  return { priceTrigger, price, amount, expired, slippage, gasPrice };
}

export function updateLimitOrderRoute(deps: RouteDeps): RouteDefinition {
  return defineRoute<UpdateLimitOrderBody>({
    method: 'PATCH',
    path: '/limit-order/:id',
    auth: 'signed',
    body: updateLimitOrderBody,
    doc: {
      tag: 'Limit orders',
      summary: 'Change a pending limit order',
      description:
        'Only the sent fields change (a PATCH with only `priceTrigger` leaves `price` as it was). No new ' +
        'signature is needed. An order no longer `pending` answers 409 and stays unchanged. Safe to repeat.',
      parameters: [limitOrderIdParameter],
      response: limitOrderSchema,
      errors: [400, 404, 409, 500],
    },
    async handle({ body, params, auth }) {
      const apiKey = signingKeyOf(auth);
      const now = deps.now();
      const details = emptyChangeSetDetails(body);
      if (body.expired !== undefined) details.push(...expiredDetails(body.expired, now));
      if (details.length) throw new ValidationError(INVALID_BODY, details);

      const sent = new Set(AMOUNT_FIELDS.filter((field) => body[field] !== undefined));
      if (sent.size) {
        // The bounds of the amount and prices depend on the order's tokens and on the values not sent, so these
        // checks need the order itself. A token dropped from the list since creation leaves nothing to check
        // against (the keeper fails what it cannot read).
        const order = await deps.store.limitOrders.findForKey(apiKey, params.id);
        if (!order) throw new NotFoundError(LIMIT_ORDER_NOT_FOUND);
        const [tokenIn, tokenOut] = await Promise.all([
          deps.store.tokens.find(order.chainId, order.inTokenAddress),
          deps.store.tokens.find(order.chainId, order.outTokenAddress),
        ]);
        const values = {
          amount: body.amount ?? order.amount,
          priceTrigger: body.priceTrigger ?? order.priceTrigger,
          price: body.price ?? order.price,
        };
        const amountDetails = orderAmountDetails(values, sent, tokenIn, tokenOut);
        if (amountDetails.length) throw new ValidationError(INVALID_BODY, amountDetails);
      }

      const result = await deps.store.limitOrders.updateIfPending(apiKey, params.id, changesOf(body), now);
      return limitOrderResponse(orderFromWrite(result));
    },
  });
}
