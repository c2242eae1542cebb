import type { CommandSpec } from '../command';
import { recordEntries, renderFields } from '../table';

export const tx: CommandSpec = {
  name: 'tx',
  summary: 'the on-chain status of a transaction (GET /transactions/{hash})',
  positionals: [{ name: 'HASH', description: 'transaction hash (0x + 64 hex digits)' }],
  options: { chain: { type: 'string', value: 'N', required: true, description: 'chain ID' } },
  examples: ['tas tx 0x5c50...e1f2 --chain 1'],
  async run(ctx, args) {
    const [hash, chainId] = [args.positional(0), args.chainId()];
    const status = await ctx.client().transaction(hash, chainId);
    ctx.out.result(status, () => renderFields(recordEntries(status)));
  },
};
