import { NotFoundError } from '../../../shared/domain/errors';
import { defineRoute, type RouteDefinition } from '../../http/route-definition';
import { signingKeyOf } from '../../http/signing-key';
import type { RouteDeps } from '../route-deps';
import { WEBHOOK_NOT_FOUND, webhookIdParameter, webhookSchema } from './schemas';
import { webhookJson } from './webhook-json';

export function getWebhookRoute(deps: RouteDeps): RouteDefinition {
  return defineRoute<undefined>({
    method: 'GET',
    path: '/webhooks/:id',
    auth: 'signed',
    doc: {
      tag: 'Events',
      summary: 'Read one webhook',
      description: `A missing or other key’s ID is \`404 ${WEBHOOK_NOT_FOUND}\`.`,
      parameters: [webhookIdParameter],
      response: webhookSchema,
      errors: [404, 500],
    },
    async handle({ params, auth }) {
      const webhook = await deps.store.webhooks.findForKey(signingKeyOf(auth), params.id);
      if (!webhook) throw new NotFoundError(WEBHOOK_NOT_FOUND);
      return webhookJson(webhook);
    },
  });
}
