import type { RouteDefinition } from '../service/route-definition';
import { docsHtml, docsInitScript, docsPageRoute } from './docs-page';
import { withDocumentedEndpoints } from './documented-endpoints';
import { buildOpenApiDocument, type OpenApiDocument } from './openapi-document';
import { openApiJsonRoute } from './openapi-json-route';
import { staticAssetRoute } from './static-asset';
import { loadSwaggerUiAssets } from './swagger-ui-assets';

/** What /openapi.json describes: the served routes (asset routes excluded) and the documented endpoints. */
export function apiDocument(listed: readonly RouteDefinition[]): OpenApiDocument {
  return buildOpenApiDocument(withDocumentedEndpoints(listed));
}

/**
 * The public documentation routes: GET /openapi.json, GET /docs and the page's assets. Built once per app: the
 * document is generated and serialized here, from the same route definitions (and schemas) that are served.
 */
export function documentationRoutes(served: RouteDefinition[]): RouteDefinition[] {
  let json = '';
  const assets = [...loadSwaggerUiAssets(), docsInitScript()];
  const pages = [openApiJsonRoute(() => json), docsPageRoute(docsHtml(assets))];
  json = JSON.stringify(apiDocument([...served, ...pages]));
  return [...pages, ...assets.map(staticAssetRoute)];
}
