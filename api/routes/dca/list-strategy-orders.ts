import { defineRoute, type RouteDefinition } from '../../http/route-definition';
import type { RouteDeps } from '../route-deps';
import { strategyNotFound } from './dca-errors';
import { signingKeyOf } from '../../http/signing-key';
import { dcaOrderJson } from '../../../shared/domain/dca-json';
import { dcaOrderSchema, strategyIdParam } from './dca-schemas';

export function listStrategyOrdersRoute(deps: RouteDeps): RouteDefinition {
  return defineRoute<undefined>({
    method: 'GET',
    path: '/dca-order/strategies/:id/orders',
    auth: 'signed',
    doc: {
      tag: 'DCA',
      summary: "List a DCA strategy's orders",
      description:
        'The orders created so far, oldest first; no filters, no pagination. Can hold fewer than `iterations` ' +
        'while the strategy is active.',
      parameters: [strategyIdParam],
      response: { type: 'array', items: dcaOrderSchema },
      errors: [404, 500],
    },
    async handle({ params, auth }) {
      const strategy = await deps.store.dca.findStrategyForKey(signingKeyOf(auth), params.id);
      if (!strategy) throw strategyNotFound();
      const orders = await deps.store.dca.listOrdersOfStrategy(strategy.id);
      return orders.map(dcaOrderJson);
    },
  });
}
