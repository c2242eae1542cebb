import type { Webhook, WebhookDelivery } from '../../../shared/store/repositories/webhooks-repository';

export interface WebhookJson {
  id: string;
  url: string;
  events: string[];
  createdAt: string;
}

const iso = (ms: number): string => new Date(ms).toISOString();

/** The webhook without its secret, which only the creation answer shows. */
export function webhookJson(webhook: Webhook): WebhookJson {
  return { id: webhook.id, url: webhook.url, events: webhook.events, createdAt: iso(webhook.createdAt) };
}

export function deliveryJson(delivery: WebhookDelivery): Record<string, unknown> {
  return {
    eventId: delivery.eventId,
    eventType: delivery.eventType,
    attempt: delivery.attempt,
    statusCode: delivery.statusCode,
    error: delivery.error,
    durationMs: delivery.durationMs,
    createdAt: iso(delivery.createdAt),
  };
}
