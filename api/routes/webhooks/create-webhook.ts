import { randomBytes, randomUUID } from 'node:crypto';
import { ValidationError } from '../../../shared/domain/errors';
import { RESOURCE_EVENT_TYPES, type EventType } from '../../../shared/events/event-types';
import { defineRoute, type RouteDefinition } from '../../http/route-definition';
import { INVALID_BODY } from '../../http/validator';
import { signingKeyOf } from '../../http/signing-key';
import type { RouteDeps } from '../route-deps';
import {
  createdWebhookSchema,
  createWebhookBody,
  MAX_WEBHOOKS_PER_KEY,
  TOO_MANY_WEBHOOKS,
  type CreateWebhookBody,
} from './schemas';
import { webhookJson } from './webhook-json';

/** `url` must parse as an absolute http(s) URL with a host (the schema only checks its scheme). */
function checkUrl(url: string): void {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new ValidationError(INVALID_BODY, [{ field: 'url', message: 'Must be an http or https URL' }]);
  }
  if ((parsed.protocol !== 'http:' && parsed.protocol !== 'https:') || !parsed.hostname) {
    throw new ValidationError(INVALID_BODY, [{ field: 'url', message: 'Must be an http or https URL' }]);
  }
}

export function createWebhookRoute(deps: RouteDeps): RouteDefinition {
  return defineRoute<CreateWebhookBody>({
    method: 'POST',
    path: '/webhooks',
    auth: 'signed',
    body: createWebhookBody,
    doc: {
      tag: 'Events',
      summary: 'Register a webhook',
      description:
        'Events of this key’s resources are `POST`ed to `url` from now on: body `{"id","type","createdAt","data"}` ' +
        '(`data` is the resource exactly as its GET answers it), headers `x-tas-event-id`, `x-tas-timestamp` ' +
        '(Unix seconds) and `x-tas-signature`. A 2xx within 5 s is delivered; anything else is retried with ' +
        'backoff for at least 24 hours. Events of one resource arrive in order; the same event may arrive twice ' +
        `(deduplicate by its id). At most ${MAX_WEBHOOKS_PER_KEY} webhooks per key (400 \`${TOO_MANY_WEBHOOKS}\`).`,
      response: createdWebhookSchema,
      errors: [400, 500],
    },
    async handle({ body, auth }) {
      const apiKey = signingKeyOf(auth);
      checkUrl(body.url);
      const id = randomUUID();
      const secret = `whsec_${randomBytes(32).toString('hex')}`;
      const now = deps.now();
      const webhook = {
        id,
        apiKey,
        url: body.url,
        events: (body.events ?? [...RESOURCE_EVENT_TYPES]) as EventType[],
        secretSealed: deps.secretBox.seal(secret, id),
        createdAt: now,
        cursor: await deps.store.events.lastPublishedSeq(),
        attempt: 0,
        failingSince: null,
        nextAttemptAt: 0,
      };
      if (!(await deps.store.webhooks.insertWithin(webhook, MAX_WEBHOOKS_PER_KEY))) {
        throw new ValidationError(TOO_MANY_WEBHOOKS);
      }
      return { ...webhookJson(webhook), secret };
    },
  });
}
