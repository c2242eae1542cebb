import { NotFoundError, ValidationError } from '../../../shared/domain/errors';
import type { LimitOrderChanges } from '../../../shared/domain/limit-order';
import { defineRoute, type RouteDefinition } from '../../service/route-definition';
import { INVALID_BODY } from '../../service/validator';
import type { RouteDeps } from '../index';
import { limitOrderResponse } from './limit-order-response';
import {
  amountDecimalsDetails,
  emptyChangeSetDetails,
  expiredDetails,
  slippageDetails,
} from './order-field-rules';
import { LIMIT_ORDER_NOT_FOUND, orderFromWrite } from './pending-write';
import { signingKeyOf } from '../../service/signing-key';
import { limitOrderIdParameter, limitOrderSchema, updateLimitOrderBody } from './schemas';

type UpdateLimitOrderBody = LimitOrderChanges & Record<string, unknown>;

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
      if (body.slippage !== undefined) details.push(...slippageDetails(body.slippage));
      if (details.length) throw new ValidationError(INVALID_BODY, details);

      if (body.amount !== undefined) {
        // The amount's precision depends on the order's token, so this check needs the order itself.
        const order = await deps.store.limitOrders.findForKey(apiKey, params.id);
        if (!order) throw new NotFoundError(LIMIT_ORDER_NOT_FOUND);
        // A token dropped from the list since creation leaves nothing to check against; the keeper rejects dust.
        const token = await deps.store.tokens.find(order.chainId, order.inTokenAddress);
        const amountDetails = token ? amountDecimalsDetails(body.amount, token) : [];
        if (amountDetails.length) throw new ValidationError(INVALID_BODY, amountDetails);
      }

      const result = await deps.store.limitOrders.updateIfPending(apiKey, params.id, changesOf(body), now);
      return limitOrderResponse(orderFromWrite(result));
    },
  });
}
