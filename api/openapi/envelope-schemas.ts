import type { SchemaObject } from 'ajv';
import { REQUEST_ID_HEADER } from '../gateway/request-id';
import { API_VERSION } from '../http/envelope';

/** Component names of the envelope pieces every operation refers to. */
export const COMPONENT = {
  meta: 'Meta',
  errorEnvelope: 'ErrorEnvelope',
  gatewayError: 'GatewayError',
  requestIdHeader: 'RequestId',
  retryAfterHeader: 'RetryAfter',
} as const;

export const schemaRef = (name: string): SchemaObject => ({ $ref: `#/components/schemas/${name}` });
export const headerRef = (name: string): { $ref: string } => ({ $ref: `#/components/headers/${name}` });

const metaSchema: SchemaObject = {
  type: 'object',
  required: ['requestId', 'version'],
  properties: {
    requestId: {
      type: 'string',
      description: `Unique request ID; equals the \`${REQUEST_ID_HEADER}\` response header`,
    },
    version: { type: 'string', description: 'API version that served the request', example: API_VERSION },
    accountType: {
      type: 'string',
      description: 'Signed endpoints only: `integrator` for accounts created by POST /accounts',
    },
    apiKeyId: {
      type: 'string',
      description: 'Signed endpoints only: the API key ID that signed the request',
    },
  },
};

const errorEnvelopeSchema: SchemaObject = {
  type: 'object',
  required: ['success', 'error', 'meta'],
  properties: {
    success: { type: 'boolean', enum: [false] },
    error: {
      type: 'object',
      required: ['code', 'message', 'details'],
      properties: {
        code: {
          type: 'string',
          description:
            'Stable code; branch on it together with the HTTP status; handle unknown codes by status',
        },
        message: { type: 'string', description: 'Human text; do not parse' },
        details: {
          type: 'array',
          description:
            'Validation errors: `{field, message}` with a dot path such as `params.chainId`. Handler errors: `{message}`. Otherwise empty.',
          items: {
            type: 'object',
            required: ['message'],
            properties: { field: { type: 'string' }, message: { type: 'string' } },
          },
        },
      },
    },
    meta: schemaRef(COMPONENT.meta),
  },
};

const gatewayErrorSchema: SchemaObject = {
  type: 'object',
  description:
    'Answer of the API gateway itself: no `success`, `error` or `meta`. Check for the `success` key.',
  required: ['message'],
  properties: { message: { type: 'string' } },
};

export const envelopeComponents = {
  schemas: {
    [COMPONENT.meta]: metaSchema,
    [COMPONENT.errorEnvelope]: errorEnvelopeSchema,
    [COMPONENT.gatewayError]: gatewayErrorSchema,
  },
  headers: {
    [COMPONENT.requestIdHeader]: {
      description: 'Unique request ID, also on gateway answers',
      schema: { type: 'string' },
    },
    [COMPONENT.retryAfterHeader]: {
      description: 'Seconds to wait before the next attempt',
      schema: { type: 'integer' },
    },
  },
};

/** The success envelope around a route's `data` schema (which stays the route's own object). */
export function successEnvelope(data: SchemaObject): SchemaObject {
  return {
    type: 'object',
    required: ['success', 'data', 'meta'],
    properties: {
      success: { type: 'boolean', enum: [true], description: 'Branch on this, never on `data`' },
      data,
      meta: schemaRef(COMPONENT.meta),
    },
  };
}
