import type { SchemaObject } from 'ajv';
import type { ParameterizedContext } from 'koa';
import type { Logger } from '../../shared/log/create-logger';
import type { AuthContext } from '../gateway/account-authenticator';
import type { ApiState } from './api-state';

export type HttpMethod = 'GET' | 'POST' | 'PATCH' | 'DELETE';

export type RawQuery = Record<string, string | string[] | undefined>;

export interface RouteRequest<TBody> {
  /** The validated body (POST/PATCH routes with a body schema); undefined otherwise. */
  body: TBody;
  query: RawQuery;
  params: Record<string, string>;
  /** Set on signed routes. */
  auth: AuthContext | undefined;
  requestId: string;
  log: Logger;
}

/** One documented query, path or header parameter, for /openapi.json. */
export interface ParameterDoc {
  name: string;
  in: 'query' | 'path' | 'header';
  required: boolean;
  schema: SchemaObject;
  description?: string;
}

export interface RouteDoc {
  summary: string;
  description?: string;
  tag: string;
  parameters?: ParameterDoc[];
  /** Schema of `data` in the success envelope. */
  response?: SchemaObject;
  /** Error statuses this route can answer besides the gateway's. */
  errors?: number[];
  /** Media type of a raw (not enveloped) success body, on routes that answer with `raw`; `response` is its schema. */
  rawContentType?: string;
}

export interface RouteDefinition<TBody = unknown> {
  method: HttpMethod;
  /** Path under /api/v1 in @koa/router syntax: `/limit-order/:id`. */
  path: string;
  auth: 'signed' | 'public';
  /** Request body schema; a route that has one requires a JSON object body. */
  body?: SchemaObject;
  /** Message of the VALIDATION_ERROR when the body does not fit the schema. */
  bodyError?: string;
  doc: RouteDoc;
  /**
   * An unpaginated list: a key's concurrent calls are capped (LIST_CONCURRENCY_PER_KEY) for as long as the answer
   * is being written, and the handler may return a StreamedList to have it serialized in slices.
   */
  list?: boolean;
  /** Returns `data` for the success envelope. */
  handle?: (request: RouteRequest<TBody>) => Promise<unknown>;
  /** For the public documentation routes that answer raw documents instead of the envelope. */
  raw?: (ctx: ParameterizedContext<ApiState>) => Promise<void> | void;
}

/** Helper that keeps the handler's body type tied to its schema at the definition site. */
export function defineRoute<TBody>(route: RouteDefinition<TBody>): RouteDefinition {
  return route as RouteDefinition;
}

/**
 * A route's definition without its handler: everything /openapi.json shows. Route files export theirs and serve it
 * spread (`{...quotesEndpoint, handle}`); one registered as is stays documented and unmounted (a 404).
 */
export type DocumentedRoute = Omit<RouteDefinition, 'handle' | 'raw'>;
