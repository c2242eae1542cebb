import { Maker } from '../../maker';
import type { DcaOrder, DcaStrategy, DcaStrategyWithOrders } from '../../types';
import type { CommandSpec } from '../command';
import { recordEntries, renderFields, renderTable } from '../table';
import { checksummed } from '../units';

const ID = [{ name: 'ID', description: 'DCA strategy ID' }];

function renderStrategy(strategy: DcaStrategy): string {
  return renderFields(recordEntries(strategy, ['orders']));
}

function renderStrategies(strategies: readonly DcaStrategyWithOrders[]): string {
  if (strategies.length === 0) return 'no DCA strategies\n';
  return renderTable(strategies, [
    ['ID', (s) => s.id],
    ['STATUS', (s) => s.status],
    ['CHAIN', (s) => s.chainIdFrom],
    ['PAIR', (s) => `${s.tokenSymbolFrom}/${s.tokenSymbolTo}`],
    ['TOTAL', (s) => s.totalAmount],
    ['ORDERS', (s) => `${s.orders.length}/${s.iterations}`],
    ['EVERY', (s) => `${s.frequency}s`],
    ['CREATED', (s) => s.createdAt],
  ]);
}

function renderDcaOrders(orders: readonly DcaOrder[]): string {
  if (orders.length === 0) return 'no DCA orders yet\n';
  return renderTable(orders, [
    ['ID', (o) => o.id],
    ['STATUS', (o) => o.status],
    ['AMOUNT', (o) => o.amount],
    ['RECEIVED', (o) => o.amountReceived],
    ['PRICE', (o) => o.executionPrice],
    ['CREATED', (o) => o.createdAt],
    ['TX HASH / ERROR', (o) => o.transactionHash ?? o.errorMessage],
  ]);
}

export const dcaCreate: CommandSpec = {
  name: 'dca create',
  summary: 'create a DCA strategy from the wallet of TAS_PRIVATE_KEY (signs the pair, approves, creates)',
  description:
    'The maker is the wallet of TAS_PRIVATE_KEY on TAS_RPC_URL. --total is split into --iterations equal orders,\n' +
    'one every --every seconds. The allowance is raised, when short, to cover the whole budget and a fee per\n' +
    'iteration on top of what open orders need.',
  options: {
    chain: { type: 'string', value: 'N', required: true, description: 'chain ID' },
    sell: {
      type: 'string',
      value: 'T',
      required: true,
      description: 'token sold (ERC-20): address or symbol',
    },
    buy: { type: 'string', value: 'T', required: true, description: 'token bought: address or symbol' },
    total: {
      type: 'string',
      value: 'X',
      required: true,
      description: 'whole budget, readable units of --sell',
    },
    iterations: { type: 'string', value: 'N', required: true, description: 'number of equal orders' },
    every: {
      type: 'string',
      value: 'SECONDS',
      required: true,
      description: 'time between orders: seconds (or 90m, 12h, 1d, ...)',
    },
    slippage: { type: 'string', value: 'S', description: 'percent (default 1)' },
    'min-price': {
      type: 'string',
      value: 'P',
      description: 'skip orders below this price (bought per 1 sold)',
    },
    'max-price': { type: 'string', value: 'P', description: 'skip orders above this price' },
  },
  examples: ['tas dca create --chain 1 --sell WETH --buy USDC --total 1 --iterations 4 --every 1d'],
  async run(ctx, args) {
    const chainId = args.chainId();
    const params = {
      chainId,
      sell: args.string('sell'),
      buy: args.string('buy'),
      totalAmount: args.number('total'),
      iterations: args.integer('iterations'),
      frequency: args.duration('every', 0),
      slippage: args.optionalNumber('slippage'),
      minPrice: args.optionalNumber('min-price'),
      maxPrice: args.optionalNumber('max-price'),
    };
    const { wallet } = await ctx.wallet(chainId, 'dca create');
    const strategy = await new Maker(ctx.client(), wallet, ctx.makerWallet()).createDcaStrategy(params);
    ctx.out.result(strategy, () => renderStrategy(strategy));
  },
};

export const dcaList: CommandSpec = {
  name: 'dca list',
  summary: "list this API key's DCA strategies with their orders (GET /dca-order/strategies)",
  options: {
    status: { type: 'string', value: 'S', description: 'active, cancelled or finished' },
    maker: { type: 'string', value: 'ADDRESS', description: 'maker address (matched in EIP-55 form)' },
  },
  examples: ['tas dca list --status active'],
  async run(ctx, args) {
    const maker = args.optional('maker');
    const strategies = await ctx.client().listDcaStrategies({
      status: args.optional('status'),
      accountTo: maker === undefined ? undefined : checksummed(maker),
    });
    ctx.out.result(strategies, () => renderStrategies(strategies));
  },
};

export const dcaGet: CommandSpec = {
  name: 'dca get',
  summary: 'one DCA strategy (GET /dca-order/strategies/{id})',
  positionals: ID,
  options: {},
  async run(ctx, args) {
    const strategy = await ctx.client().getDcaStrategy(args.positional(0));
    ctx.out.result(strategy, () => renderStrategy(strategy));
  },
};

export const dcaOrders: CommandSpec = {
  name: 'dca orders',
  summary: "a strategy's orders so far, oldest first (GET /dca-order/strategies/{id}/orders)",
  positionals: ID,
  options: {},
  async run(ctx, args) {
    const orders = await ctx.client().listDcaOrders(args.positional(0));
    ctx.out.result(orders, () => renderDcaOrders(orders));
  },
};

export const dcaCancel: CommandSpec = {
  name: 'dca cancel',
  summary: 'cancel a DCA strategy for good (PATCH status: cancelled); its existing orders stay',
  positionals: ID,
  options: {},
  async run(ctx, args) {
    const strategy = await ctx.client().cancelDcaStrategy(args.positional(0));
    ctx.out.result(strategy, () => renderStrategy(strategy));
  },
};
