import PQueue from 'p-queue';
import type { Logger } from '../log/create-logger';
import type { SecretBox } from '../signing/secret-box';
import type { Store } from '../store/store';
import type { NewWebhookDelivery, Webhook } from '../store/repositories/webhooks-repository';
import type { PublishedEvent } from './event-types';
import { postWebhook, type PostResult } from './post-webhook';
import { webhookSignature } from './webhook-signature';

export interface WebhookDelivererOptions {
  store: Pick<Store, 'events' | 'webhooks'>;
  secretBox: SecretBox;
  /** This process's lease owner name (unique per process). */
  owner: string;
  log: Logger;
  allowInternalTargets: boolean;
  now?: () => number;
  /** How often the outbox is published and due webhooks looked for. */
  pollMs?: number;
  /** A 2xx must come within this; anything else is a failed attempt. */
  timeoutMs?: number;
  leaseMs?: number;
  /** Webhooks served at once by this process. */
  concurrency?: number;
  /** An event is retried until it is this old, then given up (recorded in the deliveries). */
  retryWindowMs?: number;
  /** Published events are kept this long (for late webhooks and the stream's resume). */
  retentionMs?: number;
  observer?: DeliveryObserver;
  post?: typeof postWebhook;
  /** The process's store watch: while the store is away the deliverer waits, and logs nothing of its own. */
  storeWatch?: { readonly up: boolean; failed(err: unknown): boolean };
}

/** Metrics hooks: one call per attempt. `lagMs` runs from the event's creation to the receiver's 2xx. */
export interface DeliveryObserver {
  attempted(outcome: 'delivered' | 'failed' | 'given_up', lagMs: number): void;
}

export const WEBHOOK_TIMEOUT_MS = 5_000;
/** More than 24 hours, as promised: the last retry may come up to one back-off later. */
export const WEBHOOK_RETRY_WINDOW_MS = 25 * 3_600_000;
const MAX_BACKOFF_MS = 600_000;
const EVENTS_PER_READ = 50;
/** A lease holder serves a webhook at most this long before letting others have a turn. */
const SERVE_BUDGET_MS = 20_000;
const PRUNE_EVERY_MS = 600_000;
/** Of the process's delivery slots (`concurrency`, 8), one API key's webhooks hold at most this many at once. */
const MAX_SERVED_PER_KEY = 2;

/** 1 s, 2 s, 4 s … capped at 10 min, with ±20% jitter so receivers coming back are not hit in step. */
export function backoffMs(attempt: number, random: () => number = Math.random): number {
  const base = Math.min(MAX_BACKOFF_MS, 1_000 * 2 ** Math.max(0, attempt - 1));
  return Math.round(base * (0.8 + 0.4 * random()));
}

/**
 * Delivers the outbox to webhooks, in any number of api and keeper processes at once: a webhook is served by
 * the holder of its lease only, one event at a time in delivery order (so one resource's events arrive in order),
 * and its cursor moves past an event only once a 2xx came (at-least-once: a crash after the POST and before the
 * cursor write sends it again, with the same id). Also publishes the outbox and prunes old events.
 */
export class WebhookDeliverer {
  private readonly now: () => number;
  private readonly pollMs: number;
  private readonly timeoutMs: number;
  private readonly leaseMs: number;
  private readonly retryWindowMs: number;
  private readonly retentionMs: number;
  private readonly queue: PQueue;
  private readonly serving = new Set<string>();
  /** Webhooks being served per API key: one key's slow receivers may not take every slot. */
  private readonly servingPerKey = new Map<string, number>();
  private readonly post: typeof postWebhook;
  private timer: NodeJS.Timeout | undefined;
  private ticking: Promise<void> | undefined;
  private stopped = true;
  private lastPrune = 0;

  constructor(private readonly options: WebhookDelivererOptions) {
    this.now = options.now ?? Date.now;
    this.pollMs = options.pollMs ?? 200;
    this.timeoutMs = options.timeoutMs ?? WEBHOOK_TIMEOUT_MS;
    this.leaseMs = options.leaseMs ?? 30_000;
    this.retryWindowMs = options.retryWindowMs ?? WEBHOOK_RETRY_WINDOW_MS;
    this.retentionMs = options.retentionMs ?? 7 * 24 * 3_600_000;
    this.queue = new PQueue({ concurrency: options.concurrency ?? 8 });
    this.post = options.post ?? postWebhook;
  }

  start(): void {
    if (!this.stopped) return;
    this.stopped = false;
    this.schedule(0);
  }

  /** Stops looking for work and waits for deliveries in flight (each bounded by the timeout). */
  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    await this.ticking;
    await this.queue.onIdle();
  }

  private schedule(delayMs: number): void {
    if (this.stopped) return;
    this.timer = setTimeout(() => {
      const watch = this.options.storeWatch;
      this.ticking = (watch && !watch.up ? Promise.resolve() : this.tick())
        .catch((err: unknown) => this.logFailure(err, 'webhook delivery tick failed'))
        .finally(() => this.schedule(this.pollMs));
    }, delayMs);
  }

  /** One round: publish, prune now and then, and start serving every due webhook not served here already. */
  async tick(): Promise<void> {
    const { events, webhooks } = this.options.store;
    while ((await events.publish()) >= 1000) {
      // A backlog: publish it all before serving.
    }
    const now = this.now();
    if (now - this.lastPrune >= PRUNE_EVERY_MS) {
      this.lastPrune = now;
      await events.prune(now - this.retentionMs);
      await webhooks.pruneDeliveries(now - this.retentionMs);
    }
    const due = await webhooks.listDue(now, 100);
    for (const webhook of due) {
      const ofKey = this.servingPerKey.get(webhook.apiKey) ?? 0;
      if (this.serving.has(webhook.id) || ofKey >= MAX_SERVED_PER_KEY) continue;
      this.serving.add(webhook.id);
      this.servingPerKey.set(webhook.apiKey, ofKey + 1);
      void this.queue
        .add(() => this.serve(webhook.id))
        .catch((err: unknown) => this.logFailure(err, 'webhook delivery failed', webhook.id))
        .finally(() => {
          this.serving.delete(webhook.id);
          const left = (this.servingPerKey.get(webhook.apiKey) ?? 1) - 1;
          if (left > 0) this.servingPerKey.set(webhook.apiKey, left);
          else this.servingPerKey.delete(webhook.apiKey);
        });
    }
  }

  private logFailure(err: unknown, message: string, webhookId?: string): void {
    if (this.options.storeWatch?.failed(err)) return;
    this.options.log.warn({ err: String(err), ...(webhookId ? { webhookId } : {}) }, message);
  }

  private async serve(webhookId: string): Promise<void> {
    const { webhooks, events } = this.options.store;
    const owner = this.options.owner;
    const webhook = await webhooks.claim(webhookId, owner, this.leaseMs, this.now());
    if (!webhook) return;
    const secret = this.options.secretBox.open(webhook.secretSealed, webhook.id);
    const started = this.now();
    let cursor = webhook.cursor;
    let attempt = webhook.attempt;
    let failingSince = webhook.failingSince;
    // Attempts and the cursor are written once a batch (a crash in between sends its delivered events again, with
    // their ids: at-least-once), so a busy webhook costs a few writes a batch, not two an event.
    const log: NewWebhookDelivery[] = [];
    const flush = async (): Promise<void> => {
      if (log.length) await webhooks.logDeliveries(webhook.id, log.splice(0));
    };
    while (!this.stopped && this.now() - started < SERVE_BUDGET_MS) {
      const batch = await events.listForKey(webhook.apiKey, cursor, EVENTS_PER_READ, webhook.id);
      if (!batch.length) break;
      for (const event of batch) {
        if (!wanted(webhook, event)) {
          cursor = event.publishedSeq;
          continue;
        }
        const { result, delivery } = await this.attempt(webhook, secret, event, attempt + 1);
        log.push(delivery);
        const now = this.now();
        if (isSuccess(result)) {
          cursor = event.publishedSeq;
          attempt = 0;
          failingSince = null;
          this.options.observer?.attempted('delivered', now - event.createdAt);
          continue;
        }
        if (now - event.createdAt >= this.retryWindowMs) {
          this.options.observer?.attempted('given_up', now - event.createdAt);
          this.options.log.warn(
            { webhookId: webhook.id, eventId: event.id, attempts: attempt + 1 },
            'webhook event given up after the retry window',
          );
          cursor = event.publishedSeq;
          attempt = 0;
          failingSince = null;
          continue;
        }
        this.options.observer?.attempted('failed', now - event.createdAt);
        attempt += 1;
        failingSince ??= now;
        await flush();
        // Keeps the progress made before this event, and releases the lease until the retry.
        await webhooks.recordFailure(webhook.id, owner, {
          cursor,
          attempt,
          failingSince,
          nextAttemptAt: now + backoffMs(attempt),
        });
        return;
      }
      await flush();
      if (cursor !== webhook.cursor) {
        if (!(await webhooks.advance(webhook.id, owner, cursor, this.leaseMs, this.now()))) return;
        webhook.cursor = cursor;
      }
    }
    await webhooks.release(webhook.id, owner);
  }

  private async attempt(
    webhook: Webhook,
    secret: string,
    event: PublishedEvent,
    attempt: number,
  ): Promise<{ result: PostResult; delivery: NewWebhookDelivery }> {
    const timestamp = Math.floor(this.now() / 1000);
    const result = await this.post(
      webhook.url,
      {
        'content-type': 'application/json',
        'user-agent': 'tas-webhooks/1',
        'x-tas-event-id': event.id,
        'x-tas-timestamp': String(timestamp),
        'x-tas-signature': webhookSignature(secret, timestamp, event.body),
      },
      event.body,
      { timeoutMs: this.timeoutMs, allowInternal: this.options.allowInternalTargets },
    );
    const ok = isSuccess(result);
    const delivery: NewWebhookDelivery = {
      eventId: event.id,
      eventType: event.type,
      attempt,
      statusCode: result.statusCode,
      error: ok ? null : (result.error ?? `HTTP ${result.statusCode}`),
      durationMs: result.durationMs,
      createdAt: this.now(),
    };
    return { result, delivery };
  }
}

function wanted(webhook: Webhook, event: PublishedEvent): boolean {
  if (event.type === 'ping') return event.webhookId === webhook.id;
  return webhook.events.includes(event.type);
}

function isSuccess(result: PostResult): boolean {
  return result.statusCode !== null && result.statusCode >= 200 && result.statusCode < 300;
}
