import { defineRoute, type RouteDefinition } from '../../http/route-definition';
import type { RouteDeps } from '../route-deps';
import { limitOrderResponse } from '../../../shared/domain/limit-order-json';
import { orderFromWrite } from './pending-write';
import { signingKeyOf } from '../../http/signing-key';
import { limitOrderIdParameter, limitOrderSchema } from './schemas';

export function cancelLimitOrderRoute(deps: RouteDeps): RouteDefinition {
  return defineRoute<undefined>({
    method: 'DELETE',
    path: '/limit-order/:id',
    auth: 'signed',
    doc: {
      tag: 'Limit orders',
      summary: 'Cancel a pending limit order',
      description:
        'Sets `status: cancelled` and `deletedAt`; the order stays readable and listed. An order no longer ' +
        '`pending` answers 409, including a repeated DELETE (then read the order: `cancelled` means the first ' +
        'call worked). The maker’s allowance is not changed.',
      parameters: [limitOrderIdParameter],
      response: limitOrderSchema,
      errors: [404, 409, 500],
    },
    async handle({ params, auth }) {
      const result = await deps.store.limitOrders.cancelIfPending(signingKeyOf(auth), params.id, deps.now());
      return limitOrderResponse(orderFromWrite(result));
    },
  });
}
