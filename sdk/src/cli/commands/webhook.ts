import type { Webhook, WebhookCreated, WebhookDelivery, WebhookEventType } from '../../types';
import type { CommandSpec } from '../command';
import { renderFields, renderTable } from '../table';
import { UsageError } from '../usage-error';

const ID = [{ name: 'ID', description: 'webhook ID' }];

function webhookFields(webhook: Webhook): Array<[string, unknown]> {
  return [
    ['id', webhook.id],
    ['url', webhook.url],
    ['events', webhook.events],
    ['createdAt', webhook.createdAt],
  ];
}

function renderWebhooks(webhooks: readonly Webhook[]): string {
  if (webhooks.length === 0) return 'no webhooks\n';
  return renderTable(webhooks, [
    ['ID', (w) => w.id],
    ['URL', (w) => w.url],
    ['CREATED', (w) => w.createdAt],
    ['EVENTS', (w) => w.events],
  ]);
}

function renderDeliveries(deliveries: readonly WebhookDelivery[]): string {
  if (deliveries.length === 0) return 'no delivery attempts yet\n';
  return renderTable(deliveries, [
    ['AT', (d) => d.createdAt],
    ['EVENT', (d) => d.eventId],
    ['TYPE', (d) => d.eventType],
    ['ATTEMPT', (d) => d.attempt],
    ['STATUS', (d) => d.statusCode],
    ['MS', (d) => d.durationMs],
    ['ERROR', (d) => d.error],
  ]);
}

/** `a,b` as a list; the API validates the names (400 for an unknown type). */
function eventList(text: string | undefined): WebhookEventType[] | undefined {
  if (text === undefined) return undefined;
  const names = text
    .split(',')
    .map((name) => name.trim())
    .filter((name) => name !== '');
  if (names.length === 0) throw new UsageError('--events needs at least one event type');
  return names as WebhookEventType[];
}

export const webhookCreate: CommandSpec = {
  name: 'webhook create',
  summary: 'create a webhook (POST /webhooks); prints its signing secret, shown only once',
  description:
    "The service POSTs this API key's events to --url as JSON ({id, type, createdAt, data}), signed with the\n" +
    "webhook's secret: x-tas-signature is hex HMAC-SHA256 of `<x-tas-timestamp>.<raw body>` (the SDK's\n" +
    'verifyWebhookSignature checks it). The secret is returned only here: store it now. Delivery is at least\n' +
    'once: dedupe on the event id. At most 10 webhooks per API key.',
  options: {
    url: {
      type: 'string',
      value: 'URL',
      required: true,
      description: 'where events are POSTed (http or https)',
    },
    events: {
      type: 'string',
      value: 'a,b',
      description:
        'event types, comma-separated (default all: limit_order.updated, dca_strategy.updated, ' +
        'dca_order.updated, transfer.updated)',
    },
  },
  examples: [
    'tas webhook create --url https://example.com/tas-hook',
    'tas webhook create --url https://example.com/hook --events limit_order.updated,dca_order.updated --json',
  ],
  async run(ctx, args) {
    const events = eventList(args.optional('events'));
    const created: WebhookCreated = await ctx.client().webhooks.create({
      url: args.string('url'),
      ...(events ? { events } : {}),
    });
    ctx.out.result(
      created,
      () =>
        `Webhook created.\n${renderFields([...webhookFields(created), ['secret', created.secret]])}\n` +
        'Store the secret now: the API shows it only once. Verify every delivery with it (x-tas-signature over\n' +
        '`<x-tas-timestamp>.<raw body>`, e.g. verifyWebhookSignature of the SDK) before trusting it.\n',
    );
  },
};

export const webhookList: CommandSpec = {
  name: 'webhook list',
  summary: "list this API key's webhooks (GET /webhooks)",
  options: {},
  examples: ['tas webhook list', 'tas webhook list --json'],
  async run(ctx) {
    const webhooks = await ctx.client().webhooks.list();
    ctx.out.result(webhooks, () => renderWebhooks(webhooks));
  },
};

export const webhookDelete: CommandSpec = {
  name: 'webhook delete',
  summary: 'delete a webhook (DELETE /webhooks/{id}): nothing more is delivered to it',
  positionals: ID,
  options: {},
  examples: ['tas webhook delete 3b0f...'],
  async run(ctx, args) {
    const webhook = await ctx.client().webhooks.delete(args.positional(0));
    ctx.out.result(webhook, () => `Webhook deleted.\n${renderFields(webhookFields(webhook))}`);
  },
};

export const webhookTest: CommandSpec = {
  name: 'webhook test',
  summary: 'send a ping event to one webhook (POST /webhooks/{id}/test)',
  positionals: ID,
  options: {},
  examples: ['tas webhook test 3b0f... && tas webhook log 3b0f...'],
  async run(ctx, args) {
    const id = args.positional(0);
    const result = await ctx.client().webhooks.test(id);
    ctx.out.result(
      result,
      () =>
        `ping event ${result.eventId} queued for webhook ${id}; see its attempts with \`tas webhook log ${id}\`\n`,
    );
  },
};

export const webhookLog: CommandSpec = {
  name: 'webhook log',
  summary: "a webhook's recent delivery attempts, newest first (GET /webhooks/{id}/deliveries)",
  positionals: ID,
  options: {},
  examples: ['tas webhook log 3b0f...'],
  async run(ctx, args) {
    const deliveries = await ctx.client().webhooks.deliveries(args.positional(0));
    ctx.out.result(deliveries, () => renderDeliveries(deliveries));
  },
};
