import { Contract, type TransactionReceipt } from 'ethers';
import { toBaseUnits } from '../../amounts';
import { TasError } from '../../errors';
import type { SwapData, Token } from '../../types';
import type { CommandSpec } from '../command';
import type { ChainWallet } from '../wallet';
import type { Output } from '../output';
import { renderFields } from '../table';
import { UsageError } from '../usage-error';
import { amountText, checksummed } from '../units';
import { TRADE_OPTIONS, tradeParams } from './quote';

const ERC20 = [
  'function allowance(address owner, address spender) view returns (uint256)',
  'function approve(address spender, uint256 amount) returns (bool)',
];
const NATIVE = `0x${'e'.repeat(40)}`;
const RECEIPT_TIMEOUT_MS = 600_000;

type SingleChainSwap = Extract<SwapData, { mode: 'single-chain' }>['swap'];

export interface SentSwap {
  hash: string;
  status: 'success' | 'reverted';
  blockNumber: number;
  gasUsed: bigint;
  /** Set when the allowance was short and an approval was sent first. */
  approvalTxHash: string | null;
}

async function mined(chain: ChainWallet, hash: string, what: string): Promise<TransactionReceipt> {
  const receipt = await chain.provider.waitForTransaction(hash, 1, RECEIPT_TIMEOUT_MS);
  if (!receipt) {
    throw new TasError({
      code: 'RECEIPT_TIMEOUT',
      status: 0,
      message: `${what} ${hash} was not mined in time`,
    });
  }
  return receipt;
}

/** Approves `contractToApprove` when the allowance is short of the amount, then sends the swap and waits for it. */
async function sendSwap(
  chain: ChainWallet,
  swap: SingleChainSwap,
  sell: Token,
  amount: bigint,
  out: Output,
): Promise<SentSwap> {
  let approvalTxHash: string | null = null;
  if (sell.address.toLowerCase() !== NATIVE) {
    const token = new Contract(sell.address, ERC20, chain.wallet);
    const allowance = (await token.getFunction('allowance')(
      chain.wallet.address,
      swap.contractToApprove,
    )) as bigint;
    if (allowance < amount) {
      out.progress(`approving ${amountText(amount, sell)} to ${swap.contractToApprove} ...`);
      const approval = (await token.getFunction('approve')(swap.contractToApprove, amount)) as {
        hash: string;
      };
      const receipt = await mined(chain, approval.hash, 'approval');
      if (receipt.status !== 1) {
        throw new TasError({
          code: 'APPROVAL_FAILED',
          status: 0,
          message: `approve(${swap.contractToApprove}) reverted (transaction ${approval.hash})`,
        });
      }
      approvalTxHash = approval.hash;
    }
  }
  out.progress(`sending the swap to ${swap.to} ...`);
  // ethers estimates the gas itself: the swap's gasLimit is unreliable (spec).
  const sent = await chain.wallet.sendTransaction({
    to: swap.to,
    data: swap.data,
    value: BigInt(swap.value),
  });
  const receipt = await mined(chain, sent.hash, 'swap');
  return {
    hash: sent.hash,
    status: receipt.status === 1 ? 'success' : 'reverted',
    blockNumber: receipt.blockNumber,
    gasUsed: receipt.gasUsed,
    approvalTxHash,
  };
}

export const swap: CommandSpec = {
  name: 'swap',
  summary: 'calldata of a swap on one chain (POST /swap); --send signs and sends it',
  description:
    'Quotes first (unless --aggregator names the source), then builds the calldata for the sending wallet:\n' +
    '--account, else the wallet of TAS_PRIVATE_KEY. Without --send it prints the transaction to send. With\n' +
    '--send (needs TAS_PRIVATE_KEY and TAS_RPC_URL) it approves contractToApprove when the allowance is short,\n' +
    'sends the transaction, waits for its receipt and prints hash, status and gas used; a revert exits 1.',
  options: {
    ...TRADE_OPTIONS,
    aggregator: { type: 'string', value: 'ID', description: 'aggregatorId of a quote (skips the quote)' },
    account: {
      type: 'string',
      value: 'ADDRESS',
      description: "the wallet that will send the transaction (default: TAS_PRIVATE_KEY's)",
    },
    send: { type: 'boolean', description: 'approve if needed, send, and wait for the receipt' },
  },
  examples: [
    'tas swap --chain 1 --sell WETH --buy USDC --amount 0.1 --account 0xYourWallet',
    'TAS_PRIVATE_KEY=... TAS_RPC_URL=http://127.0.0.1:8545 tas swap --chain 1 --sell WETH --buy USDC --amount 0.1 --send',
  ],
  async run(ctx, args) {
    const send = args.flag('send');
    const chain = send ? await ctx.wallet(args.chainId(), 'swap --send') : undefined;
    const given = args.optional('account');
    if (chain && given && checksummed(given) !== chain.wallet.address) {
      throw new UsageError('--account differs from the wallet of TAS_PRIVATE_KEY, which --send sends from');
    }
    const account = given ? checksummed(given) : (chain?.wallet.address ?? ctx.walletAddress());
    if (!account)
      throw new UsageError('swap needs the sending wallet: --account ADDRESS (or set TAS_PRIVATE_KEY)');
    const trade = await tradeParams(ctx, args);
    const client = ctx.client();
    const aggregatorId =
      args.optional('aggregator') ??
      (await client.quote({ mode: 'single-chain', params: trade.params })).quote.aggregatorId;
    const data = await client.swap({
      mode: 'single-chain',
      params: { ...trade.params, account, aggregatorId },
    });
    if (data.mode !== 'single-chain') {
      throw new TasError({
        code: 'UNEXPECTED_RESPONSE',
        status: 0,
        message: `a ${data.mode} swap was returned`,
      });
    }
    const details = (): Array<[string, unknown]> => [
      ['aggregator', aggregatorId],
      ['account', account],
      ['to', data.swap.to],
      ['value', data.swap.value],
      ['contract to approve', data.swap.contractToApprove],
      ['out amount', amountText(data.swap.outAmount, trade.buy)],
      ['min out amount', amountText(data.swap.minOutAmount, trade.buy)],
      ['gas limit', `${data.swap.gasLimit} (unreliable: estimate it yourself)`],
    ];
    if (!chain) {
      ctx.out.result(data, () => renderFields([...details(), ['data', data.swap.data]]));
      return;
    }
    const amount = toBaseUnits(trade.params.amount, trade.sell.decimals);
    const sent = await sendSwap(chain, data.swap, trade.sell, amount, ctx.out);
    ctx.out.result({ ...sent, swap: data }, () =>
      renderFields([
        ['hash', sent.hash],
        ['status', sent.status],
        ['block', sent.blockNumber],
        ['gas used', sent.gasUsed],
        ['approval', sent.approvalTxHash],
        ...details(),
      ]),
    );
    if (sent.status !== 'success') {
      throw new TasError({
        code: 'TX_REVERTED',
        status: 0,
        message: `swap transaction ${sent.hash} reverted`,
      });
    }
  },
};
