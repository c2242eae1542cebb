import type { CommandSpec } from '../command';
import { UsageError } from '../usage-error';

export const events: CommandSpec = {
  name: 'events',
  summary: "follow this API key's events (GET /events): one JSON line each, until Ctrl-C",
  description:
    'Prints every event of the stream as one line of JSON on stdout ({"id","type","createdAt","data"}, data being\n' +
    'the resource as its GET answers it) and keeps following: a dropped connection is reopened, signed anew,\n' +
    'resuming right after the last event printed (retries are told on stderr). Without --last-event-id only\n' +
    'events published after the connection come. Ctrl-C stops it (exit 0) and tells on stderr the id to resume\n' +
    'after.',
  options: {
    'last-event-id': {
      type: 'string',
      value: 'ID',
      description: 'resume right after this event (an unknown id is a 400)',
    },
  },
  examples: [
    'tas events',
    'tas events --last-event-id evt_0a1b... | jq -c "select(.type == \\"limit_order.updated\\")"',
  ],
  async run(ctx, args) {
    const given = args.optional('last-event-id')?.trim();
    if (given === '') throw new UsageError('--last-event-id needs an event id');
    const controller = new AbortController();
    const unregister = ctx.io.onInterrupt?.(() => controller.abort());
    let last = given;
    let opened = 0;
    try {
      const stream = ctx.client().events({
        lastEventId: given,
        signal: controller.signal,
        onOpen: () => {
          opened += 1;
          if (opened === 1) ctx.out.progress('following the event stream (Ctrl-C to stop)');
          else ctx.out.progress(last ? `reconnected, resuming after ${last}` : 'reconnected');
        },
      });
      for await (const event of stream) {
        ctx.io.stdout(`${JSON.stringify(event)}\n`);
        last = event.id;
      }
    } catch (err) {
      if (!controller.signal.aborted) throw err;
      ctx.out.progress(last ? `stopped; resume with: tas events --last-event-id ${last}` : 'stopped');
    } finally {
      unregister?.();
    }
  },
};
