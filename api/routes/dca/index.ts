import type { RouteDefinition } from '../../service/route-definition';
import type { RouteDeps } from '../index';

/** Every DCA endpoint. */
export function dcaRoutes(_deps: RouteDeps): RouteDefinition[] {
  return [];
}
