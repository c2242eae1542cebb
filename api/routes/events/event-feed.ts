import type { Logger } from '../../../shared/log/create-logger';
import type { PublishedEvent } from '../../../shared/events/event-types';
import type { EventOutbox } from '../../../shared/events/event-outbox';

type Listener = (event: PublishedEvent) => void;
interface Subscription {
  listener: Listener;
  /** Ends the connection: the process is stopping. */
  end: () => void;
}

/**
 * One reader of the published outbox per api process, fanning events out to the stream connections of their key:
 * a thousand open streams cost one query per poll, not a thousand.
 */
export class EventFeed {
  private readonly listeners = new Map<string, Set<Subscription>>();
  private position: number | undefined;
  private timer: NodeJS.Timeout | undefined;
  private running = false;

  constructor(
    private readonly events: EventOutbox,
    private readonly log: Logger,
    /** The process's store watch: a poll that could not reach the store is its to log (once per outage). */
    private readonly storeWatch?: { failed(err: unknown): boolean },
    private readonly pollMs = 200,
  ) {}

  /** The last delivery position read: a new connection's live events follow it. */
  async current(): Promise<number> {
    if (this.position === undefined) this.position = await this.events.lastPublishedSeq();
    return this.position;
  }

  /** Streams open in this process for the key. */
  openStreams(apiKey: string): number {
    return this.listeners.get(apiKey)?.size ?? 0;
  }

  /** Listens to one key's events from now on; returns the unsubscribe. Starts polling with the first listener. */
  subscribe(apiKey: string, listener: Listener, end: () => void): () => void {
    let set = this.listeners.get(apiKey);
    if (!set) this.listeners.set(apiKey, (set = new Set()));
    const subscription = { listener, end };
    set.add(subscription);
    if (!this.running) this.start();
    return () => {
      set.delete(subscription);
      if (!set.size) this.listeners.delete(apiKey);
    };
  }

  /** Stops polling and ends every open stream (a server closing gracefully would otherwise wait for them). */
  stop(): void {
    this.running = false;
    if (this.timer) clearTimeout(this.timer);
    for (const set of [...this.listeners.values()]) for (const subscription of [...set]) subscription.end();
    this.listeners.clear();
  }

  private start(): void {
    this.running = true;
    const loop = (): void => {
      if (!this.running) return;
      this.poll()
        .catch((err: unknown) => {
          if (!this.storeWatch?.failed(err)) this.log.warn({ err: String(err) }, 'event stream poll failed');
        })
        .finally(() => {
          if (!this.running) return;
          if (!this.listeners.size) {
            this.running = false;
            return;
          }
          this.timer = setTimeout(loop, this.pollMs);
        });
    };
    loop();
  }

  private async poll(): Promise<void> {
    // Publishing here too: a stream must not wait for a deliverer elsewhere to order the outbox.
    await this.events.publish();
    let after = await this.current();
    for (;;) {
      const batch = await this.events.listAfter(after, 500);
      for (const event of batch) {
        after = event.publishedSeq;
        for (const subscription of this.listeners.get(event.apiKey) ?? []) subscription.listener(event);
      }
      this.position = after;
      if (batch.length < 500) return;
    }
  }
}
