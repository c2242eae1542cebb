import { NotFoundError } from '../../../shared/domain/errors';
import { defineRoute, type RouteDefinition } from '../../http/route-definition';
import { signingKeyOf } from '../../http/signing-key';
import type { RouteDeps } from '../route-deps';
import { WEBHOOK_NOT_FOUND, webhookIdParameter } from './schemas';

export function testWebhookRoute(deps: RouteDeps): RouteDefinition {
  return defineRoute<Record<string, never>>({
    method: 'POST',
    path: '/webhooks/:id/test',
    auth: 'signed',
    body: { type: 'object', maxProperties: 0 },
    doc: {
      tag: 'Events',
      summary: 'Send a ping to a webhook',
      description:
        'Queues a `ping` event (`data: {webhookId}`) for this webhook only, delivered and retried like any event; ' +
        'its attempts appear under deliveries. The body is `{}`.',
      parameters: [webhookIdParameter],
      response: {
        type: 'object',
        required: ['eventId'],
        properties: { eventId: { type: 'string' } },
      },
      errors: [404, 500],
    },
    async handle({ params, auth }) {
      const apiKey = signingKeyOf(auth);
      const webhook = await deps.store.webhooks.findForKey(apiKey, params.id);
      if (!webhook) throw new NotFoundError(WEBHOOK_NOT_FOUND);
      return { eventId: await deps.store.events.recordPing(apiKey, webhook.id, deps.now()) };
    },
  });
}
