import type { TasClient } from './client';
import type {
  CreateWebhookRequest,
  Webhook,
  WebhookCreated,
  WebhookDelivery,
  WebhookEventType,
  WebhookTestResult,
} from './types';

/** Every type a webhook can subscribe to: what POST /webhooks subscribes a webhook to when `events` is absent. */
export const WEBHOOK_EVENT_TYPES: readonly WebhookEventType[] = [
  'limit_order.updated',
  'dca_strategy.updated',
  'dca_order.updated',
  'transfer.updated',
];

/** At most this many webhooks per API key (POST /webhooks answers 400 past it). */
export const MAX_WEBHOOKS_PER_KEY = 10;

const segment = (value: string): string => encodeURIComponent(value);

/**
 * `client.webhooks`: the API key's webhooks (signed like every call; each method returns the envelope's `data`).
 * Deliveries are signed with the webhook's own secret: check them with verifyWebhookSignature.
 */
export class Webhooks {
  constructor(private readonly client: TasClient) {}

  /**
   * POST /webhooks (never retried: each success creates a webhook; after a network failure, list first). The
   * answer carries the webhook's `secret`, shown only here: store it to verify deliveries.
   */
  async create(body: CreateWebhookRequest): Promise<WebhookCreated> {
    return (await this.client.request<WebhookCreated>('POST', '/webhooks', { body })).data;
  }

  /** GET /webhooks: this API key's webhooks, without their secrets. */
  async list(): Promise<Webhook[]> {
    return (await this.client.request<Webhook[]>('GET', '/webhooks')).data;
  }

  /** GET /webhooks/{id}; 404 NotFoundError for an unknown id or another key's webhook. */
  async get(id: string): Promise<Webhook> {
    return (await this.client.request<Webhook>('GET', `/webhooks/${segment(id)}`)).data;
  }

  /** DELETE /webhooks/{id}: no delivery is attempted after it; resolves to the deleted webhook. */
  async delete(id: string): Promise<Webhook> {
    return (await this.client.request<Webhook>('DELETE', `/webhooks/${segment(id)}`)).data;
  }

  /** GET /webhooks/{id}/deliveries: the recent delivery attempts, newest first. */
  async deliveries(id: string): Promise<WebhookDelivery[]> {
    return (await this.client.request<WebhookDelivery[]>('GET', `/webhooks/${segment(id)}/deliveries`)).data;
  }

  /** POST /webhooks/{id}/test: sends a `ping` event to this webhook only; resolves to its event id. */
  async test(id: string): Promise<WebhookTestResult> {
    return (
      await this.client.request<WebhookTestResult>('POST', `/webhooks/${segment(id)}/test`, { body: {} })
    ).data;
  }
}
