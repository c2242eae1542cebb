import { defineRoute, type RouteDefinition } from '../../http/route-definition';
import type { RouteDeps } from '../route-deps';
import { strategyNotFound } from './dca-errors';
import { signingKeyOf } from '../../http/signing-key';
import { strategyJson } from '../../../shared/domain/dca-json';
import { dcaStrategySchema, strategyIdParam } from './dca-schemas';

export function getStrategyRoute(deps: RouteDeps): RouteDefinition {
  return defineRoute<undefined>({
    method: 'GET',
    path: '/dca-order/strategies/:id',
    auth: 'signed',
    doc: {
      tag: 'DCA',
      summary: 'Read one DCA strategy (without its orders)',
      description:
        '404 `DCA strategy not found` when the ID does not exist, is malformed or belongs to another key.',
      parameters: [strategyIdParam],
      response: dcaStrategySchema,
      errors: [404, 500],
    },
    async handle({ params, auth }) {
      const strategy = await deps.store.dca.findStrategyForKey(signingKeyOf(auth), params.id);
      if (!strategy) throw strategyNotFound();
      return strategyJson(strategy);
    },
  });
}
