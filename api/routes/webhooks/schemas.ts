import type { SchemaObject } from 'ajv';
import { RESOURCE_EVENT_TYPES } from '../../../shared/events/event-types';
import type { ParameterDoc } from '../../http/route-definition';

/** At most this many live webhooks per API key. */
export const MAX_WEBHOOKS_PER_KEY = 10;
export const MAX_WEBHOOK_URL_LENGTH = 2048;
export const TOO_MANY_WEBHOOKS = `At most ${MAX_WEBHOOKS_PER_KEY} webhooks per API key`;
export const WEBHOOK_NOT_FOUND = 'Webhook not found';

const eventType: SchemaObject = { type: 'string', enum: [...RESOURCE_EVENT_TYPES] };

export const createWebhookBody: SchemaObject = {
  type: 'object',
  required: ['url'],
  properties: {
    url: {
      type: 'string',
      minLength: 1,
      maxLength: MAX_WEBHOOK_URL_LENGTH,
      pattern: '^[Hh][Tt][Tt][Pp][Ss]?://',
      description: 'An `http` or `https` URL that accepts `POST` requests',
      example: 'https://example.com/tas-events',
    },
    events: {
      type: 'array',
      minItems: 1,
      maxItems: RESOURCE_EVENT_TYPES.length,
      uniqueItems: true,
      items: eventType,
      description: 'Event types to send; all of them when absent',
    },
  },
};

export interface CreateWebhookBody {
  url: string;
  events?: string[];
}

const webhookProperties: Record<string, SchemaObject> = {
  id: { type: 'string', description: 'Webhook ID (UUID)' },
  url: { type: 'string' },
  events: { type: 'array', items: eventType },
  createdAt: { type: 'string', format: 'date-time' },
};

export const webhookSchema: SchemaObject = {
  type: 'object',
  required: ['id', 'url', 'events', 'createdAt'],
  properties: webhookProperties,
};

export const createdWebhookSchema: SchemaObject = {
  type: 'object',
  required: ['id', 'url', 'events', 'secret', 'createdAt'],
  properties: {
    ...webhookProperties,
    secret: {
      type: 'string',
      description:
        'The signing secret (`whsec_` and 64 hex digits), shown only in this answer: each delivery carries ' +
        '`x-tas-signature`, the lowercase hex HMAC-SHA256 under this secret of `<x-tas-timestamp>.<raw body>`',
    },
  },
};

export const webhookListSchema: SchemaObject = { type: 'array', items: webhookSchema };

export const deliverySchema: SchemaObject = {
  type: 'object',
  required: ['eventId', 'eventType', 'attempt', 'statusCode', 'error', 'durationMs', 'createdAt'],
  properties: {
    eventId: { type: 'string' },
    eventType: { type: 'string' },
    attempt: { type: 'integer', description: '1 for the first attempt at this event, then 2, 3, …' },
    statusCode: {
      type: 'integer',
      nullable: true,
      description: 'The receiver’s HTTP status; null when no answer came in 5 s or the connection failed',
    },
    error: { type: 'string', nullable: true },
    durationMs: { type: 'integer' },
    createdAt: { type: 'string', format: 'date-time' },
  },
};

export const webhookIdParameter: ParameterDoc = {
  name: 'id',
  in: 'path',
  required: true,
  schema: { type: 'string' },
  description: 'Webhook ID; another key’s webhook is reported as not found',
};
