import { NotFoundError } from '../../../shared/domain/errors';
import { defineRoute, type RouteDefinition } from '../../http/route-definition';
import type { RouteDeps } from '../route-deps';
import { limitOrderResponse } from '../../../shared/domain/limit-order-json';
import { LIMIT_ORDER_NOT_FOUND } from './pending-write';
import { signingKeyOf } from '../../http/signing-key';
import { limitOrderIdParameter, limitOrderSchema } from './schemas';

export function getLimitOrderRoute(deps: RouteDeps): RouteDefinition {
  return defineRoute<undefined>({
    method: 'GET',
    path: '/limit-order/:id',
    auth: 'signed',
    doc: {
      tag: 'Limit orders',
      summary: 'Read one limit order',
      description: 'A missing, malformed or other key’s ID is `404 Limit order not found`.',
      parameters: [limitOrderIdParameter],
      response: limitOrderSchema,
      errors: [404, 500],
    },
    async handle({ params, auth }) {
      const order = await deps.store.limitOrders.findForKey(signingKeyOf(auth), params.id);
      if (!order) throw new NotFoundError(LIMIT_ORDER_NOT_FOUND);
      return limitOrderResponse(order);
    },
  });
}
