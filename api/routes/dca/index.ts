import type { RouteDefinition } from '../../http/route-definition';
import type { RouteDeps } from '../route-deps';
import { createStrategyRoute } from './create-strategy';
import { getDcaOrderRoute } from './get-dca-order';
import { getStrategyRoute } from './get-strategy';
import { listStrategiesRoute } from './list-strategies';
import { listStrategyOrdersRoute } from './list-strategy-orders';
import { updateStrategyRoute } from './update-strategy';

/** Every DCA endpoint, in the order of the spec. No DELETE: a strategy is cancelled with PATCH. */
export function dcaRoutes(deps: RouteDeps): RouteDefinition[] {
  return [
    createStrategyRoute(deps),
    listStrategiesRoute(deps),
    getStrategyRoute(deps),
    updateStrategyRoute(deps),
    listStrategyOrdersRoute(deps),
    getDcaOrderRoute(deps),
  ];
}
