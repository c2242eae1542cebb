import type { RouteDefinition } from '../service/route-definition';

/** The public documentation routes: GET /openapi.json and GET /docs (with its assets). */
export function documentationRoutes(_served: RouteDefinition[]): RouteDefinition[] {
  return [];
}
