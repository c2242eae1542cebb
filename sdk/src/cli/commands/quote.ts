import type { CommandSpec, OptionSpec } from '../command';
import type { Context } from '../context';
import type { Args } from '../args';
import { renderFields } from '../table';
import { amountText, priceText, tokenText } from '../units';
import type { Token } from '../../types';

/** The options quote and swap share. */
export const TRADE_OPTIONS: Record<string, OptionSpec> = {
  chain: { type: 'string', value: 'N', required: true, description: 'chain ID' },
  sell: {
    type: 'string',
    value: 'T',
    required: true,
    description: 'token sold: address or symbol of GET /tokens',
  },
  buy: { type: 'string', value: 'T', required: true, description: 'token bought: address or symbol' },
  amount: {
    type: 'string',
    value: 'A',
    required: true,
    description: 'amount sold, in readable units of the sold token (0.5 = half a token)',
  },
  slippage: { type: 'string', value: 'S', description: 'percent (default 1)' },
  'gas-price': {
    type: 'string',
    value: 'G',
    description: 'whole gwei, a routing hint only, not the price paid (default 30)',
  },
};

export interface TradeParams {
  chainId: number;
  sell: Token;
  buy: Token;
  params: {
    chainId: number;
    inTokenAddress: string;
    outTokenAddress: string;
    amount: string;
    gasPrice: string;
    slippage: string;
  };
}

/** The single-chain params of a quote or a swap, the tokens resolved through GET /tokens. */
export async function tradeParams(ctx: Context, args: Args): Promise<TradeParams> {
  const chainId = args.chainId();
  const amount = args.string('amount').trim();
  const gasPrice = args.optional('gas-price') ?? '30';
  const slippage = args.optional('slippage') ?? '1';
  const [sell, buy] = await Promise.all([
    ctx.token(chainId, args.string('sell')),
    ctx.token(chainId, args.string('buy')),
  ]);
  const params = {
    chainId,
    inTokenAddress: sell.address,
    outTokenAddress: buy.address,
    amount,
    gasPrice,
    slippage,
  };
  return { chainId, sell, buy, params };
}

export const quote: CommandSpec = {
  name: 'quote',
  summary: 'the best route for a swap on one chain (POST /quotes)',
  options: TRADE_OPTIONS,
  examples: [
    'tas quote --chain 1 --sell WETH --buy USDC --amount 0.5',
    'tas quote --chain 1 --sell WETH --buy USDC --amount 0.5 --json',
  ],
  async run(ctx, args) {
    const trade = await tradeParams(ctx, args);
    const data = await ctx.client().quote({ mode: 'single-chain', params: trade.params });
    ctx.out.result(data, () => {
      const q = data.quote;
      const out = 'outAmount' in q ? q.outAmount : q.toTokenAmount;
      const fees = q.integratorFeeBreakdown;
      return renderFields([
        ['sell', `${trade.params.amount} ${tokenText(trade.sell)}`],
        ['buy', tokenText(trade.buy)],
        ['out amount', amountText(out, trade.buy)],
        ['price', priceText(out, trade.buy, trade.params.amount, trade.sell)],
        ['aggregator', q.aggregatorId],
        ['sources', q.aggregatorOrder],
        ['estimated gas', q.estimatedGas],
        ['protocol fee', `${fees.protocolFeeBps} bps, ${amountText(fees.protocolFeeAmount, trade.buy)}`],
      ]);
    });
  },
};
