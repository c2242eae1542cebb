import { NotFoundError } from '../../../shared/domain/errors';
import { defineRoute, type RouteDefinition } from '../../http/route-definition';
import { signingKeyOf } from '../../http/signing-key';
import type { RouteDeps } from '../route-deps';
import { deliverySchema, WEBHOOK_NOT_FOUND, webhookIdParameter } from './schemas';
import { deliveryJson } from './webhook-json';

/** How many recent attempts GET /webhooks/{id}/deliveries lists. */
export const DELIVERIES_LISTED = 100;

export function listDeliveriesRoute(deps: RouteDeps): RouteDefinition {
  return defineRoute<undefined>({
    method: 'GET',
    path: '/webhooks/:id/deliveries',
    auth: 'signed',
    doc: {
      tag: 'Events',
      summary: 'Recent delivery attempts of a webhook',
      description: `The last ${DELIVERIES_LISTED} attempts, newest first, with the receiver’s status code.`,
      parameters: [webhookIdParameter],
      response: { type: 'array', items: deliverySchema },
      errors: [404, 500],
    },
    async handle({ params, auth }) {
      const webhook = await deps.store.webhooks.findForKey(signingKeyOf(auth), params.id);
      if (!webhook) throw new NotFoundError(WEBHOOK_NOT_FOUND);
      return (await deps.store.webhooks.listDeliveries(webhook.id, DELIVERIES_LISTED)).map(deliveryJson);
    },
  });
}
