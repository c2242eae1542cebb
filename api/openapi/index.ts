import type { RouteDefinition } from '../http/route-definition';
import { docsInitScript } from './docs-init-script';
import { docsHtml, docsPageRoute } from './docs-page';
import { docsPageStyle } from './docs-page-style';
import { docsSigningScript } from './docs-signing-script';
import { buildOpenApiDocument, type OpenApiDocument } from './openapi-document';
import { openApiJsonRoute } from './openapi-json-route';
import { staticAssetRoute } from './static-asset';
import { loadSwaggerUiAssets } from './swagger-ui-assets';

/** What /openapi.json describes: the routes of the registry it is given (asset routes excluded by the caller). */
export function apiDocument(listed: readonly RouteDefinition[]): OpenApiDocument {
  return buildOpenApiDocument(listed);
}

/**
 * The public documentation routes: GET /openapi.json, GET /docs and the page's assets. Built once per app: the
 * document is generated and serialized here, from the same route definitions (and schemas) that are served.
 */
export function documentationRoutes(listed: RouteDefinition[]): RouteDefinition[] {
  let json = '';
  const assets = [...loadSwaggerUiAssets(), docsPageStyle(), docsSigningScript(), docsInitScript()];
  const pages = [openApiJsonRoute(() => json), docsPageRoute(docsHtml(assets))];
  json = JSON.stringify(apiDocument([...listed, ...pages]));
  return [...pages, ...assets.map(staticAssetRoute)];
}
