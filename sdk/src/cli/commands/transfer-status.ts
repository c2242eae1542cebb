import { TasError } from '../../errors';
import { waitForTransfer } from '../../polling';
import type { CommandSpec } from '../command';
import { recordEntries, renderFields } from '../table';

export const transferStatus: CommandSpec = {
  name: 'transfer-status',
  summary: 'the status of a cross-chain transfer (POST /tx-status)',
  description:
    'Right after the broadcast the provider has no status yet (500 TX_STATUS_ERROR): --wait polls until it\n' +
    'reports success or failure, and exits 1 on a failure.',
  options: {
    hash: { type: 'string', value: 'H', required: true, description: 'source-chain transaction hash' },
    chain: { type: 'string', value: 'N', required: true, description: 'source chain ID' },
    'dex-hash': {
      type: 'string',
      value: 'D',
      required: true,
      description: 'dexHash of the cross-chain swap',
    },
    wait: { type: 'boolean', description: 'poll until the transfer succeeds or fails' },
    timeout: {
      type: 'string',
      value: 'DURATION',
      description: 'how long --wait waits (default 30m; 90s, 10m, 1h, ...)',
    },
  },
  examples: ['tas transfer-status --hash 0xabc... --chain 10 --dex-hash 0xdef... --wait'],
  async run(ctx, args) {
    const query = {
      hash: args.string('hash'),
      chainId: args.chainId(),
      dexHash: args.string('dex-hash').toLowerCase(),
    };
    const client = ctx.client();
    if (!args.flag('wait')) {
      const status = await client.txStatus(query);
      ctx.out.result(status, () => renderFields(recordEntries(status)));
      return;
    }
    ctx.out.progress(`waiting for transfer ${query.hash} ...`);
    let last = '';
    const { outcome, status } = await waitForTransfer(client, query, {
      timeoutMs: args.duration('timeout', 1800) * 1000,
      intervalMs: 5000,
      onUpdate: (s) => {
        if (s.status !== last) ctx.out.progress(`status ${(last = s.status)}`);
      },
    });
    ctx.out.result(status, () => renderFields(recordEntries(status)));
    if (outcome === 'failure') {
      throw new TasError({
        code: 'TRANSFER_FAILED',
        status: 0,
        message: `transfer ${query.hash} ended with status ${status.status}`,
      });
    }
  },
};
