import { defineRoute, type RouteDefinition } from '../../http/route-definition';
import { signingKeyOf } from '../../http/signing-key';
import type { RouteDeps } from '../route-deps';
import { webhookListSchema } from './schemas';
import { webhookJson } from './webhook-json';

export function listWebhooksRoute(deps: RouteDeps): RouteDefinition {
  return defineRoute<undefined>({
    method: 'GET',
    path: '/webhooks',
    auth: 'signed',
    doc: {
      tag: 'Events',
      summary: 'List webhooks',
      description: 'Every live webhook of the signing key, oldest first, without secrets.',
      response: webhookListSchema,
      errors: [500],
    },
    async handle({ auth }) {
      return (await deps.store.webhooks.listForKey(signingKeyOf(auth))).map(webhookJson);
    },
  });
}
