import type { RouteDefinition } from '../../http/route-definition';
import type { RouteDeps } from '../route-deps';
import { createWebhookRoute } from './create-webhook';
import { deleteWebhookRoute } from './delete-webhook';
import { getWebhookRoute } from './get-webhook';
import { listDeliveriesRoute } from './list-deliveries';
import { listWebhooksRoute } from './list-webhooks';
import { testWebhookRoute } from './test-webhook';

/** The webhook endpoints (an extension: the spec leaves event delivery "not shown"). */
export function webhookRoutes(deps: RouteDeps): RouteDefinition[] {
  return [
    createWebhookRoute(deps),
    listWebhooksRoute(deps),
    getWebhookRoute(deps),
    deleteWebhookRoute(deps),
    listDeliveriesRoute(deps),
    testWebhookRoute(deps),
  ];
}
