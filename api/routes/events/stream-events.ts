import { PassThrough } from 'node:stream';
import type { ParameterizedContext } from 'koa';
import { ValidationError } from '../../../shared/domain/errors';
import { tooManyRequests } from '../../gateway/gateway-error';
import type { PublishedEvent } from '../../../shared/events/event-types';
import type { EventOutbox } from '../../../shared/events/event-outbox';
import type { ApiState } from '../../http/api-state';
import { defineRoute, type RouteDefinition } from '../../http/route-definition';
import { signingKeyOf } from '../../http/signing-key';
import type { EventFeed } from './event-feed';

export const UNKNOWN_LAST_EVENT_ID = 'Unknown Last-Event-ID';
export const KEEP_ALIVE_MS = 15_000;
/** Open streams one API key may hold in one api process: one key's connections may not starve the others. */
export const MAX_STREAMS_PER_KEY = 10;
const STREAMS_RETRY_AFTER_SECONDS = 5;
const BACKLOG_PAGE = 500;

export interface StreamEventsDeps {
  events: EventOutbox;
  feed: EventFeed;
  keepAliveMs?: number;
}

/** One SSE message: the event id, its type, and the same body a webhook receives. */
function frame(event: PublishedEvent): string {
  return `id: ${event.id}\nevent: ${event.type}\ndata: ${event.body}\n\n`;
}

export function streamEventsRoute(deps: StreamEventsDeps): RouteDefinition {
  const keepAliveMs = deps.keepAliveMs ?? KEEP_ALIVE_MS;
  return defineRoute<undefined>({
    method: 'GET',
    path: '/events',
    auth: 'signed',
    doc: {
      tag: 'Events',
      summary: 'Follow events as Server-Sent Events',
      description:
        'Send `Accept: text/event-stream`. Answers `200 text/event-stream` (not enveloped) and keeps the connection ' +
        'open: each of the signing key’s events as `id:` (event id), `event:` (type) and `data:` (the same JSON ' +
        `body a webhook receives), and a \`: keep-alive\` comment every ${KEEP_ALIVE_MS / 1000} s. Without ` +
        '`Last-Event-ID` the stream starts with events published after the connection; with it, right after that ' +
        `event (events are kept 7 days; an unknown id is 400 \`${UNKNOWN_LAST_EVENT_ID}\`). The signature covers ` +
        'the connection; reconnect with a new signature and the last id seen. A key holds at most ' +
        `${MAX_STREAMS_PER_KEY} open streams per api process; another is the gateway's 429 with Retry-After.`,
      parameters: [
        {
          name: 'Last-Event-ID',
          in: 'header',
          required: false,
          schema: { type: 'string' },
          description: 'Resume right after this event',
        },
      ],
      response: { type: 'string', description: 'A text/event-stream' },
      rawContentType: 'text/event-stream',
      errors: [400, 500],
    },
    async raw(ctx: ParameterizedContext<ApiState>) {
      const apiKey = signingKeyOf(ctx.state.auth);
      if (deps.feed.openStreams(apiKey) >= MAX_STREAMS_PER_KEY)
        throw tooManyRequests(STREAMS_RETRY_AFTER_SECONDS);
      const lastEventId = ctx.get('last-event-id');
      let after: number;
      if (lastEventId) {
        const seq = await deps.events.publishedSeqOf(apiKey, lastEventId);
        if (seq === undefined) throw new ValidationError(UNKNOWN_LAST_EVENT_ID);
        after = seq;
      } else {
        after = await deps.feed.current();
      }
      const stream = new PassThrough();
      // Live events wait here while the backlog is written, then follow it without a gap or a repeat.
      let live: PublishedEvent[] | undefined = [];
      const send = (event: PublishedEvent): void => {
        if (event.publishedSeq <= after || event.webhookId !== null) return;
        after = event.publishedSeq;
        stream.write(frame(event));
      };
      const close = (): void => {
        clearInterval(keepAlive);
        unsubscribe();
        stream.end();
      };
      const unsubscribe = deps.feed.subscribe(
        apiKey,
        (event) => {
          if (live) live.push(event);
          else send(event);
        },
        close,
      );
      const keepAlive = setInterval(() => stream.write(': keep-alive\n\n'), keepAliveMs);
      // The response's close: the client went away (or the stream ended).
      ctx.res.once('close', close);
      ctx.status = 200;
      ctx.type = 'text/event-stream';
      ctx.set('cache-control', 'no-cache');
      ctx.set('x-accel-buffering', 'no');
      // A stream's connection is not reused: when it ends (the client left, or this process stops) it closes.
      ctx.set('connection', 'close');
      ctx.body = stream;
      ctx.res.flushHeaders?.();
      // A comment first, so a client sees the stream open before the first event.
      stream.write(': connected\n\n');
      try {
        for (;;) {
          const page = await deps.events.listForKey(apiKey, after, BACKLOG_PAGE, null);
          for (const event of page) send(event);
          if (page.length < BACKLOG_PAGE) break;
        }
      } catch (err) {
        ctx.state.log.warn({ err: String(err) }, 'event stream backlog read failed');
        close();
        return;
      }
      const waiting = live;
      live = undefined;
      for (const event of waiting) send(event);
    },
  });
}
