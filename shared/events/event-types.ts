/** The events a webhook or the stream can carry; `ping` only ever goes to the webhook it was sent to. */
export const RESOURCE_EVENT_TYPES = [
  'limit_order.updated',
  'dca_strategy.updated',
  'dca_order.updated',
  'transfer.updated',
] as const;
export type ResourceEventType = (typeof RESOURCE_EVENT_TYPES)[number];
export type EventType = ResourceEventType | 'ping';

/** The delivered body: `data` is the resource exactly as its GET answers it. */
export interface EventBody {
  id: string;
  type: EventType;
  createdAt: string;
  data: unknown;
}

/** An event as the outbox holds it once published. */
export interface PublishedEvent {
  id: string;
  apiKey: string;
  /** Set on a `ping`: the one webhook it is for. */
  webhookId: string | null;
  type: EventType;
  resourceId: string;
  /** The body exactly as sent (JSON text). */
  body: string;
  createdAt: number;
  publishedSeq: number;
}
