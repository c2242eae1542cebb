import type { RouteDefinition } from '../../http/route-definition';
import type { RouteDeps } from '../route-deps';
import { cancelLimitOrderRoute } from './cancel-limit-order';
import { createLimitOrderRoute } from './create-limit-order';
import { getLimitOrderRoute } from './get-limit-order';
import { listLimitOrdersRoute } from './list-limit-orders';
import { updateLimitOrderRoute } from './update-limit-order';

/** Every limit-order endpoint, in the order of the spec. */
export function limitOrderRoutes(deps: RouteDeps): RouteDefinition[] {
  return [
    createLimitOrderRoute(deps),
    listLimitOrdersRoute(deps),
    getLimitOrderRoute(deps),
    updateLimitOrderRoute(deps),
    cancelLimitOrderRoute(deps),
  ];
}
