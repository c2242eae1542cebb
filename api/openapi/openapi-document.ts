import type { SchemaObject } from 'ajv';
import { SIGNING_HEADERS } from '../../shared/signing/request-signature';
import { BASE_PATH } from '../http/mount-routes';
import type { DocumentedRoute, HttpMethod, ParameterDoc } from '../http/route-definition';
import { API_DESCRIPTION, API_DOCUMENT_VERSION, API_TITLE } from './api-description';
import { COMPONENT, envelopeComponents, headerRef, schemaRef, successEnvelope } from './envelope-schemas';
import { toOpenApiSchema } from './openapi-schema';

type Ref = { $ref: string };

export interface OpenApiParameter {
  name: string;
  in: 'query' | 'path' | 'header';
  required: boolean;
  schema: SchemaObject;
  description?: string;
}

export interface OpenApiResponse {
  description: string;
  headers: Record<string, Ref>;
  content?: Record<string, { schema: SchemaObject }>;
}

export interface OpenApiOperation {
  operationId: string;
  summary: string;
  description?: string;
  tags: string[];
  /** `[]` on public operations; one requirement naming all four signing headers on signed ones. */
  security: Array<Record<string, string[]>>;
  parameters?: OpenApiParameter[];
  requestBody?: { required: true; content: { 'application/json': { schema: SchemaObject } } };
  responses: Record<string, OpenApiResponse>;
}

export type OpenApiPathItem = Partial<Record<Lowercase<HttpMethod>, OpenApiOperation>>;

export interface OpenApiSecurityScheme {
  type: 'apiKey';
  in: 'header';
  name: string;
  description: string;
}

export interface OpenApiDocument {
  openapi: '3.0.3';
  info: { title: string; version: string; description: string };
  servers: Array<{ url: string }>;
  tags: Array<{ name: string }>;
  paths: Record<string, OpenApiPathItem>;
  components: {
    schemas: Record<string, SchemaObject>;
    headers: Record<string, { description: string; schema: SchemaObject }>;
    securitySchemes: Record<string, OpenApiSecurityScheme>;
  };
}

/** The security schemes are named after the headers, so the docs page's Authorize dialog reads naturally. */
export const SECURITY_SCHEMES: Record<string, OpenApiSecurityScheme> = {
  [SIGNING_HEADERS.apiKeyId]: {
    type: 'apiKey',
    in: 'header',
    name: SIGNING_HEADERS.apiKeyId,
    description: 'The API key ID (UUID) returned by POST /accounts',
  },
  [SIGNING_HEADERS.valueInfo]: {
    type: 'apiKey',
    in: 'header',
    name: SIGNING_HEADERS.valueInfo,
    description: 'Base64 of timestamp, nonce and bodyHash joined with line feeds; new for every request',
  },
  [SIGNING_HEADERS.passphrase]: {
    type: 'apiKey',
    in: 'header',
    name: SIGNING_HEADERS.passphrase,
    description: "The account's passphrase (the password given to POST /accounts)",
  },
  [SIGNING_HEADERS.signature]: {
    type: 'apiKey',
    in: 'header',
    name: SIGNING_HEADERS.signature,
    description: 'Lowercase hex HMAC-SHA256 of the signed message, keyed with the secret key',
  },
};

/** All four headers in one requirement object: they are required together, never one of them alone. */
export const SIGNED_SECURITY: Array<Record<string, string[]>> = [
  Object.fromEntries(Object.keys(SECURITY_SCHEMES).map((name) => [name, []])),
];

/** Tags in the order of the spec's Endpoints section; tags not listed here follow in order of appearance. */
const TAG_ORDER = [
  'Accounts',
  'Quotes and swaps',
  'Chains and tokens',
  'Limit orders',
  'DCA',
  'Documentation',
];

const ENVELOPE_ERRORS: Record<number, string> = {
  400: '`VALIDATION_ERROR`: a field or query parameter is missing, wrongly typed or out of range (see `error.details`)',
  401: '`UNAUTHORIZED`: the request reached the service without an authenticated context',
  403: '`FORBIDDEN`: the body does not match the signed `bodyHash` (`Invalid body hash`)',
  404: '`NOT_FOUND`: no such resource for this API key',
  409: '`CONFLICT`: the resource is no longer in a state that allows the change; nothing changed',
  422: '`NO_ROUTE`: no source can route this pair and amount; can be temporary',
  500: 'Service error; `error.code` says which (`INTERNAL_ERROR` for unexpected failures)',
};

const GATEWAY_ERRORS: Record<number, string> = {
  401: 'Gateway `{message: "Unauthorized"}`: a signing header is missing',
  403: 'Gateway `{message: "Forbidden"}`: authentication failed (key, passphrase, signature, timestamp or nonce)',
  413: 'Gateway `{message: "Payload Too Large"}`: the body exceeds the size limit',
  429: 'Gateway `{message: "Too Many Requests"}`: wait for `Retry-After` seconds',
  500: 'Gateway `{message: "Internal Server Error"}`: no response from the service',
  503:
    'Gateway `{message: "Service Unavailable"}`: the request ran past the gateway timeout, or the store could not ' +
    'be reached to verify it (then with `Retry-After`; the credentials were not judged)',
};

/** `/limit-order/:id` becomes `/limit-order/{id}`, with the names of its path parameters. */
export function openApiPath(routerPath: string): { path: string; params: string[] } {
  const params: string[] = [];
  const path = routerPath.replace(/:([A-Za-z0-9_]+)/g, (_, name: string) => {
    params.push(name);
    return `{${name}}`;
  });
  return { path, params };
}

/** `GET /dca-order/strategies/:id/orders` → `getDcaOrderStrategiesByIdOrders`: unique per method and path. */
export function operationIdOf(method: HttpMethod, routerPath: string): string {
  const words = routerPath
    .split('/')
    .filter(Boolean)
    .map((segment) => (segment.startsWith(':') ? `by-${segment.slice(1)}` : segment))
    .flatMap((segment) => segment.split(/[^A-Za-z0-9]+/))
    .filter(Boolean);
  return method.toLowerCase() + words.map((w) => w[0].toUpperCase() + w.slice(1)).join('');
}

function parametersOf(route: DocumentedRoute, pathParams: string[]): OpenApiParameter[] {
  const declared = (route.doc.parameters ?? []).map((p: ParameterDoc): OpenApiParameter => ({
    name: p.name,
    in: p.in,
    // OpenAPI requires path parameters to be required.
    required: p.in === 'path' ? true : p.required,
    schema: toOpenApiSchema(p.schema),
    ...(p.description ? { description: p.description } : {}),
  }));
  const implicit = pathParams
    .filter((name) => !declared.some((p) => p.in === 'path' && p.name === name))
    .map((name): OpenApiParameter => ({ name, in: 'path', required: true, schema: { type: 'string' } }));
  return [...implicit, ...declared];
}

function withHeaders(status: number): Record<string, Ref> {
  return {
    [COMPONENT.requestIdHeader]: headerRef(COMPONENT.requestIdHeader),
    ...(status === 429 || status === 503 ? { 'Retry-After': headerRef(COMPONENT.retryAfterHeader) } : {}),
  };
}

function errorResponses(route: DocumentedRoute): Record<string, OpenApiResponse> {
  const signed = route.auth === 'signed';
  const enveloped = route.doc.rawContentType === undefined;
  const envelope = new Set(route.doc.errors ?? []);
  // Every signed request goes through the body-hash check, and any service route can fail unexpectedly.
  if (signed && enveloped) envelope.add(403);
  if (enveloped) envelope.add(500);
  const gateway = new Set([...(signed ? [401, 403] : []), ...(route.body ? [413] : []), 429, 500, 503]);

  const responses: Record<string, OpenApiResponse> = {};
  for (const status of [...new Set([...envelope, ...gateway])].sort((a, b) => a - b)) {
    const kinds: Array<{ schema: SchemaObject; description: string }> = [];
    if (envelope.has(status)) {
      kinds.push({
        schema: schemaRef(COMPONENT.errorEnvelope),
        description: ENVELOPE_ERRORS[status] ?? 'Error',
      });
    }
    if (gateway.has(status)) {
      kinds.push({ schema: schemaRef(COMPONENT.gatewayError), description: GATEWAY_ERRORS[status] });
    }
    const schema = kinds.length === 1 ? kinds[0].schema : { oneOf: kinds.map((k) => k.schema) };
    responses[String(status)] = {
      description: kinds.map((k) => k.description).join('. Or: '),
      headers: withHeaders(status),
      content: { 'application/json': { schema } },
    };
  }
  return responses;
}

function successResponse(route: DocumentedRoute): OpenApiResponse {
  const data = toOpenApiSchema(route.doc.response ?? {});
  const { rawContentType } = route.doc;
  return {
    description: rawContentType ? `OK (${rawContentType}, not enveloped)` : 'OK',
    headers: withHeaders(200),
    content: rawContentType
      ? { [rawContentType]: { schema: data } }
      : { 'application/json': { schema: successEnvelope(data) } },
  };
}

function operationOf(route: DocumentedRoute, pathParams: string[]): OpenApiOperation {
  const parameters = parametersOf(route, pathParams);
  return {
    operationId: operationIdOf(route.method, route.path),
    summary: route.doc.summary,
    ...(route.doc.description ? { description: route.doc.description } : {}),
    tags: [route.doc.tag],
    security: route.auth === 'signed' ? SIGNED_SECURITY : [],
    ...(parameters.length ? { parameters } : {}),
    ...(route.body
      ? {
          requestBody: {
            required: true,
            content: { 'application/json': { schema: toOpenApiSchema(route.body) } },
          },
        }
      : {}),
    responses: { '200': successResponse(route), ...errorResponses(route) },
  };
}

function orderedTags(routes: readonly DocumentedRoute[]): Array<{ name: string }> {
  const used = [...new Set(routes.map((r) => r.doc.tag))];
  const known = TAG_ORDER.filter((t) => used.includes(t));
  return [...known, ...used.filter((t) => !TAG_ORDER.includes(t))].map((name) => ({ name }));
}

/**
 * The OpenAPI 3.0.3 document of the given routes. Request bodies and parameters are the schemas the validator
 * runs (the same objects wherever they are already OpenAPI 3.0); responses are the envelope around `doc.response`,
 * the enveloped errors of `doc.errors` and the gateway's bare answers.
 */
export function buildOpenApiDocument(routes: readonly DocumentedRoute[]): OpenApiDocument {
  const paths: Record<string, OpenApiPathItem> = {};
  for (const route of routes) {
    const { path, params } = openApiPath(route.path);
    const item = (paths[path] ??= {});
    const method = route.method.toLowerCase() as Lowercase<HttpMethod>;
    if (item[method]) throw new Error(`Route ${route.method} ${route.path} is defined twice`);
    item[method] = operationOf(route, params);
  }
  return {
    openapi: '3.0.3',
    info: { title: API_TITLE, version: API_DOCUMENT_VERSION, description: API_DESCRIPTION },
    servers: [{ url: BASE_PATH }],
    tags: orderedTags(routes),
    paths,
    components: { ...envelopeComponents, securitySchemes: SECURITY_SCHEMES },
  };
}
