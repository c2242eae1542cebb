import type { CommandSpec } from '../command';
import { renderFields } from '../table';
import { UsageError } from '../usage-error';
import { amountText, checksummed, tokenText } from '../units';

export const authorization: CommandSpec = {
  name: 'authorization',
  summary: 'what a maker approves and signs for a pair (GET /order-authorization)',
  description:
    'Shows the spender to approve the sold token to, the allowance and balance now, what the open orders and\n' +
    'strategies already need, the fee one more order adds, and whether the service holds a valid pair\n' +
    'signature. The maker is --maker, else the wallet of TAS_PRIVATE_KEY.',
  options: {
    chain: { type: 'string', value: 'N', required: true, description: 'chain ID' },
    sell: { type: 'string', value: 'T', required: true, description: 'token sold: address or symbol' },
    buy: { type: 'string', value: 'T', required: true, description: 'token bought: address or symbol' },
    maker: {
      type: 'string',
      value: 'ADDRESS',
      description: "the maker's wallet (default: TAS_PRIVATE_KEY's)",
    },
  },
  examples: ['tas authorization --chain 1 --sell WETH --buy USDC --maker 0xYourWallet'],
  async run(ctx, args) {
    const chainId = args.chainId();
    const given = args.optional('maker');
    const maker = given ? checksummed(given) : ctx.walletAddress();
    if (!maker)
      throw new UsageError('authorization needs the maker: --maker ADDRESS (or set TAS_PRIVATE_KEY)');
    const [sell, buy] = await Promise.all([
      ctx.token(chainId, args.string('sell')),
      ctx.token(chainId, args.string('buy')),
    ]);
    const auth = await ctx.client().orderAuthorization({
      chainId,
      accountTo: maker,
      tokenIn: checksummed(sell.address),
      tokenOut: checksummed(buy.address),
    });
    ctx.out.result(auth, () =>
      renderFields([
        ['chain', auth.chainId],
        ['maker', auth.accountTo],
        ['sell', tokenText(sell)],
        ['buy', tokenText(buy)],
        ['spender', `${auth.spender} (approve ${sell.symbol} to it)`],
        ['allowance', amountText(auth.allowance, sell)],
        ['balance', amountText(auth.balance, sell)],
        ['required by open orders', amountText(auth.required, sell)],
        ['estimated fee per order', amountText(auth.estimatedFeePerOrder, sell)],
        ['max fee', `${auth.maxFeeBps} bps of an order's amount`],
        ['open limit orders', auth.openLimitOrders],
        ['active strategies', auth.activeStrategies],
        ['valid signature held', auth.validSignatureHeld ? 'yes' : 'no'],
      ]),
    );
  },
};
