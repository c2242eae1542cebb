import { NotFoundError } from '../../../shared/domain/errors';
import { defineRoute, type RouteDefinition } from '../../http/route-definition';
import { signingKeyOf } from '../../http/signing-key';
import type { RouteDeps } from '../route-deps';
import { WEBHOOK_NOT_FOUND, webhookIdParameter, webhookSchema } from './schemas';
import { webhookJson } from './webhook-json';

export function deleteWebhookRoute(deps: RouteDeps): RouteDefinition {
  return defineRoute<undefined>({
    method: 'DELETE',
    path: '/webhooks/:id',
    auth: 'signed',
    doc: {
      tag: 'Events',
      summary: 'Delete a webhook',
      description:
        'Deliveries stop at once (one already in flight may still arrive). Answers the deleted webhook.',
      parameters: [webhookIdParameter],
      response: webhookSchema,
      errors: [404, 500],
    },
    async handle({ params, auth }) {
      const apiKey = signingKeyOf(auth);
      const webhook = await deps.store.webhooks.findForKey(apiKey, params.id);
      if (!webhook || !(await deps.store.webhooks.deleteForKey(apiKey, params.id, deps.now()))) {
        throw new NotFoundError(WEBHOOK_NOT_FOUND);
      }
      return webhookJson(webhook);
    },
  });
}
