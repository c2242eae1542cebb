import { defineRoute, type RouteDefinition } from '../../http/route-definition';
import type { RouteDeps } from '../route-deps';
import { orderNotFound } from './dca-errors';
import { signingKeyOf } from '../../http/signing-key';
import { dcaOrderJson } from '../../../shared/domain/dca-json';
import { dcaOrderSchema, orderIdParam } from './dca-schemas';

export function getDcaOrderRoute(deps: RouteDeps): RouteDefinition {
  return defineRoute<undefined>({
    method: 'GET',
    path: '/dca-order/orders/:id',
    auth: 'signed',
    doc: {
      tag: 'DCA',
      summary: 'Read one DCA order',
      description:
        '404 `DCA order not found` when no order with that ID belongs to a strategy of the signing key.',
      parameters: [orderIdParam],
      response: dcaOrderSchema,
      errors: [404, 500],
    },
    async handle({ params, auth }) {
      const order = await deps.store.dca.findOrderForKey(signingKeyOf(auth), params.id);
      if (!order) throw orderNotFound();
      return dcaOrderJson(order);
    },
  });
}
