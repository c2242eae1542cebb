import type { CommandSpec } from '../command';
import { renderTable } from '../table';

export const chains: CommandSpec = {
  name: 'chains',
  summary: 'list the enabled chain IDs (GET /chains)',
  options: {},
  examples: ['tas chains', 'tas chains --json'],
  async run(ctx) {
    const chainIds = await ctx.client().chains();
    ctx.out.result(chainIds, () =>
      renderTable(
        chainIds.map((id) => ({ id })),
        [['CHAIN ID', (c) => c.id]],
      ),
    );
  },
};

export const tokens: CommandSpec = {
  name: 'tokens',
  summary: 'list the tokens of a chain (GET /tokens)',
  options: { chain: { type: 'string', value: 'N', required: true, description: 'chain ID' } },
  examples: ['tas tokens --chain 1', 'tas tokens --chain 1 --json'],
  async run(ctx, args) {
    const chainId = args.chainId();
    const list = await ctx.client().tokens(chainId);
    ctx.out.result(list, () =>
      renderTable(list, [
        ['SYMBOL', (t) => t.symbol],
        ['DECIMALS', (t) => t.decimals],
        ['ADDRESS', (t) => t.address],
        ['NAME', (t) => t.name],
      ]),
    );
  },
};
