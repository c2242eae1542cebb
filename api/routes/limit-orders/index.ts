import type { RouteDefinition } from '../../service/route-definition';
import type { RouteDeps } from '../index';

/** Every limit-order endpoint. */
export function limitOrderRoutes(_deps: RouteDeps): RouteDefinition[] {
  return [];
}
