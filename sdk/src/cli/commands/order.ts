import { TasError } from '../../errors';
import { Maker } from '../../maker';
import { waitForOrder } from '../../polling';
import type { LimitOrder } from '../../types';
import type { CommandSpec } from '../command';
import { recordEntries, renderFields, renderTable } from '../table';
import { checksummed, millisText } from '../units';

const ID = [{ name: 'ID', description: 'limit order ID' }];

export function renderOrder(order: LimitOrder): string {
  return renderFields(
    recordEntries(order).map(([key, value]): [string, unknown] =>
      key === 'expired' ? [key, millisText(order.expired)] : [key, value],
    ),
  );
}

export function renderOrders(orders: readonly LimitOrder[]): string {
  if (orders.length === 0) return 'no limit orders\n';
  const sorted = [...orders].sort((a, b) => a.createdAt.localeCompare(b.createdAt));
  return renderTable(sorted, [
    ['ID', (o) => o.id],
    ['STATUS', (o) => o.status],
    ['CHAIN', (o) => o.chainId],
    ['PAIR', (o) => `${o.tokenASymbol}/${o.tokenBSymbol}`],
    ['AMOUNT', (o) => o.amount],
    ['TRIGGER', (o) => o.priceTrigger],
    ['EXPIRES', (o) => (/^\d+$/.test(o.expired) ? new Date(Number(o.expired)).toISOString() : o.expired)],
    ['CREATED', (o) => o.createdAt],
    ['TX HASH', (o) => o.txHash],
  ]);
}

export const orderCreate: CommandSpec = {
  name: 'order create',
  summary: 'create a limit order from the wallet of TAS_PRIVATE_KEY (signs the pair, approves, creates)',
  description:
    'The maker is the wallet of TAS_PRIVATE_KEY on TAS_RPC_URL. Reads GET /order-authorization, signs the pair\n' +
    'authorization (EIP-712), approves the order contract when the allowance does not cover the open orders,\n' +
    'this one and their fees, then creates the order (never retried). --wait polls it until completed, failed or\n' +
    'cancelled and prints the final order; an order that ends other than completed exits 1.',
  options: {
    chain: { type: 'string', value: 'N', required: true, description: 'chain ID' },
    sell: {
      type: 'string',
      value: 'T',
      required: true,
      description: 'token sold (ERC-20): address or symbol',
    },
    buy: { type: 'string', value: 'T', required: true, description: 'token bought: address or symbol' },
    amount: { type: 'string', value: 'A', required: true, description: 'amount sold, readable units' },
    trigger: {
      type: 'string',
      value: 'P',
      required: true,
      description: 'price trigger: units of the bought token per 1 sold token',
    },
    expires: {
      type: 'string',
      value: 'DURATION',
      description: 'expiry from now: 3600s, 90m, 12h, 1d, 2w (default 1d)',
    },
    slippage: { type: 'string', value: 'S', description: 'percent (default 1)' },
    'gas-price': { type: 'string', value: 'G', description: 'gwei, stored with the order (default 30)' },
    wait: { type: 'boolean', description: 'wait until the order is completed, failed or cancelled' },
    timeout: { type: 'string', value: 'DURATION', description: 'how long --wait waits (default 1h)' },
  },
  examples: [
    'tas order create --chain 1 --sell WETH --buy USDC --amount 0.5 --trigger 3500 --expires 7d',
    'tas order create --chain 1 --sell WETH --buy USDC --amount 0.5 --trigger 1000 --wait --json',
  ],
  async run(ctx, args) {
    const chainId = args.chainId();
    const expiresInSeconds = args.duration('expires', 86_400);
    const timeoutMs = args.duration('timeout', 3600) * 1000;
    const { wallet } = await ctx.wallet(chainId, 'order create');
    const client = ctx.client();
    const order = await new Maker(client, wallet, ctx.makerWallet()).createLimitOrder({
      chainId,
      sell: args.string('sell'),
      buy: args.string('buy'),
      amount: args.string('amount'),
      priceTrigger: args.string('trigger').trim(),
      expiresInSeconds,
      slippage: args.optional('slippage'),
      gasPrice: args.optional('gas-price'),
    });
    if (!args.flag('wait')) {
      ctx.out.result(order, () => renderOrder(order));
      return;
    }
    ctx.out.progress(`created limit order ${order.id} (${order.status}); waiting for it to execute ...`);
    let last = order.status;
    const final = await waitForOrder(client, order.id, {
      timeoutMs,
      intervalMs: 1000,
      onUpdate: (o) => {
        if (o.status !== last) ctx.out.progress(`status ${(last = o.status)}`);
      },
    });
    ctx.out.result(final, () => renderOrder(final));
    if (final.status !== 'completed') {
      const reasons = final.reasonFail.length ? `: ${final.reasonFail.join('; ')}` : '';
      throw new TasError({
        code: `ORDER_${final.status.toUpperCase().replace(/[^A-Z0-9]+/g, '_')}`,
        status: 0,
        message: `limit order ${final.id} ended ${final.status}${reasons}`,
      });
    }
  },
};

export const orderList: CommandSpec = {
  name: 'order list',
  summary: "list this API key's limit orders (GET /limit-order)",
  options: {
    status: {
      type: 'string',
      value: 'S',
      description: 'pending, executing, submitted, completed, failed or cancelled',
    },
    chain: { type: 'string', value: 'N', description: 'chain ID' },
    maker: { type: 'string', value: 'ADDRESS', description: 'maker address (matched in EIP-55 form)' },
  },
  examples: ['tas order list', 'tas order list --status pending --chain 1 --json'],
  async run(ctx, args) {
    const maker = args.optional('maker');
    const filter = {
      status: args.optional('status'),
      chainId: args.optionalChainId(),
      accountTo: maker === undefined ? undefined : checksummed(maker),
    };
    const orders = await ctx.client().listLimitOrders(filter);
    ctx.out.result(orders, () => renderOrders(orders));
  },
};

export const orderGet: CommandSpec = {
  name: 'order get',
  summary: 'one limit order (GET /limit-order/{id})',
  positionals: ID,
  options: {},
  examples: ['tas order get 6f1c...'],
  async run(ctx, args) {
    const order = await ctx.client().getLimitOrder(args.positional(0));
    ctx.out.result(order, () => renderOrder(order));
  },
};

export const orderCancel: CommandSpec = {
  name: 'order cancel',
  summary: 'cancel a pending limit order (DELETE /limit-order/{id}); 409 CONFLICT when no longer pending',
  positionals: ID,
  options: {},
  examples: ['tas order cancel 6f1c...'],
  async run(ctx, args) {
    const order = await ctx.client().cancelLimitOrder(args.positional(0));
    ctx.out.result(order, () => renderOrder(order));
  },
};
