import { isCallException, type Interface } from 'ethers';
import type { ChainClient } from '../../../shared/chain/chain-client';
import { erc20ErrorsInterface } from '../../../shared/chain/contract-interfaces';
import { RpcUnavailableError } from '../../../shared/chain/rpc-errors';
import { erc20Allowance, erc20Balance, nativeBalance } from '../../../shared/bridges/chain-reads';
import {
  crossChainEntryInterface,
  lockReleaseBridgeInterface,
  spokePoolInterface,
} from '../../../shared/bridges/contracts';
import type { CrossChainSwap, CrossChainSwapRequest } from '../../../shared/bridges/cross-chain-provider';
import { buildFactsOf } from '../../../shared/bridges/transfer-builds';
import type { NewTransferBuild } from '../../../shared/store/repositories/transfer-rows';
import { ServiceError, ValidationError } from '../../../shared/domain/errors';
import { INVALID_BODY } from '../../http/validator';
import { resolveCrossChainTrade, type CrossChainTradeDeps } from '../quotes/cross-chain-trade';
import { noRoute } from '../quotes/single-chain-trade';
import type { Fees } from '../quotes/schemas';
import type { CrossChainSwapParams } from './schemas';

/** Where the swap records what it built for our bridges (TransfersRepository), for the key's transfer events. */
export interface TransferBuildRecorder {
  recordBuild(build: NewTransferBuild, nowMs: number): Promise<string>;
}

export interface CrossChainSwapDeps extends CrossChainTradeDeps {
  /** RPC access per chain for the dry run; a source chain without a client is not simulated. */
  clients: { find(chainId: number): ChainClient | undefined };
  /** Absent: no build is recorded, and the transfers of these swaps send no events. */
  builds?: TransferBuildRecorder;
}

export interface CrossChainSwapBody {
  calldata: string;
  to: string;
  value: string;
  dexHash: string;
  estimatedGas: string;
  gasLimit: string;
  contractToApprove?: string;
  outAmount: string;
  minOutAmount: string;
  aggregatorId: string;
}

export const crossChainSwapError = (message: string, detail?: string): ServiceError =>
  new ServiceError('CROSS_CHAIN_SWAP_ERROR', 500, message, detail ? [{ message: detail }] : []);

const ERROR_STRING = '0x08c379a0';
/** Old-style token reverts (OpenZeppelin v4, DAI-like tokens) carry only a message. */
const FUNDING_MESSAGE = /allowance|balance|insufficient/i;

/** The revert decoded with the contracts the transaction runs through; the raw data when none knows it. */
function describeRevert(data: string): string {
  const interfaces: Interface[] = [
    crossChainEntryInterface(),
    spokePoolInterface(),
    lockReleaseBridgeInterface(),
    erc20ErrorsInterface(),
  ];
  if (data.startsWith(ERROR_STRING)) {
    try {
      return String(
        crossChainEntryInterface()
          .getAbiCoder()
          .decode(['string'], `0x${data.slice(10)}`)[0],
      );
    } catch {
      return `revert data ${data}`;
    }
  }
  for (const iface of interfaces) {
    try {
      const parsed = iface.parseError(data);
      if (parsed) return `${parsed.name}(${parsed.args.map((a: unknown) => String(a)).join(', ')})`;
    } catch {
      // Not this contract's error: try the next.
    }
  }
  return data === '0x' ? 'reverted without data' : `revert data ${data}`;
}

/** Whether the account lacks the input: native coins for the value, or the ERC-20 balance or the allowance. */
async function underfunded(
  client: ChainClient,
  swap: CrossChainSwap,
  request: CrossChainSwapRequest,
): Promise<boolean> {
  if (swap.value > 0n) return (await nativeBalance(client, request.account)) < swap.value;
  const token = request.tokenIn.address;
  const spender = swap.contractToApprove ?? swap.to;
  const [balance, allowance] = await Promise.all([
    erc20Balance(client, token, request.account),
    erc20Allowance(client, token, request.account, spender),
  ]);
  return balance < request.amountIn || allowance < request.amountIn;
}

type Simulation = { kind: 'runs' } | { kind: 'unfunded' } | { kind: 'reverts'; reason: string };

/**
 * Runs the transaction as eth_call from the account: it runs, it fails only for the account's own funding (no
 * balance or allowance yet, the normal case before the approval), or it reverts for another reason.
 */
async function simulate(
  client: ChainClient,
  swap: CrossChainSwap,
  request: CrossChainSwapRequest,
): Promise<Simulation> {
  try {
    await client.call({ from: request.account, to: swap.to, data: swap.data, value: swap.value });
    return { kind: 'runs' };
  } catch (err) {
    if (!isCallException(err)) {
      // Nodes refuse an eth_call whose value exceeds the sender's balance before running it.
      if (swap.value > 0n && /insufficient funds/i.test(String((err as { message?: unknown }).message))) {
        return { kind: 'unfunded' };
      }
      throw err;
    }
    const data = typeof err.data === 'string' ? err.data : '0x';
    const reason = describeRevert(data);
    if (/^ERC20Insufficient(Balance|Allowance)\(/.test(reason)) return { kind: 'unfunded' };
    if (data.startsWith(ERROR_STRING) && FUNDING_MESSAGE.test(reason)) return { kind: 'unfunded' };
    const short = await underfunded(client, swap, request).catch((readErr: unknown) => {
      // A token that cannot even answer balanceOf is a route problem, not the account's funding.
      if (readErr instanceof RpcUnavailableError) throw readErr;
      return false;
    });
    return short ? { kind: 'unfunded' } : { kind: 'reverts', reason };
  }
}

/** Gas of the real transaction from the account; the provider's figure when it cannot run yet. */
async function gasOf(client: ChainClient, swap: CrossChainSwap, account: string): Promise<bigint> {
  try {
    return await client.estimateGas({ from: account, to: swap.to, data: swap.data, value: swap.value });
  } catch {
    return swap.estimatedGas;
  }
}

/**
 * A cross-chain swap: the quoted provider builds the source transaction for the account (which also receives the
 * output on the destination), and the transaction is run from the account before it is handed out. Calldata that
 * would revert for any reason but the account's own funding is refused (500 CROSS_CHAIN_SWAP_ERROR: request a new
 * quote). Calldata of our own bridges is recorded as the key's build before it is handed out, so the transfer it
 * makes sends the key its `transfer.updated` events (shared/bridges/transfer-builds.ts).
 */
export async function swapCrossChain(
  deps: CrossChainSwapDeps,
  params: CrossChainSwapParams,
  fees: Fees | undefined,
  now: number,
  apiKey?: string,
): Promise<CrossChainSwapBody> {
  const { request, providers } = await resolveCrossChainTrade(deps, params, fees);
  const provider = providers.find((p) => p.id === params.aggregatorId);
  if (!provider) {
    throw new ValidationError(INVALID_BODY, [
      {
        field: 'params.aggregatorId',
        message: `Must be one of: ${providers.map((p) => p.id).join(', ')} (a cross-chain provider between these chains)`,
      },
    ]);
  }
  const swapRequest: CrossChainSwapRequest = { ...request, account: params.account, now };
  const swap = await provider.buildSwap(swapRequest);
  if (!swap) throw noRoute();
  const client = deps.clients.find(params.fromChainId);
  let estimatedGas = swap.estimatedGas;
  if (client) {
    const simulation = await simulate(client, swap, swapRequest);
    if (simulation.kind === 'reverts') {
      throw crossChainSwapError('The transfer would revert on-chain', simulation.reason);
    }
    if (simulation.kind === 'runs') estimatedGas = await gasOf(client, swap, params.account);
  }
  if (deps.builds && apiKey) {
    const facts = buildFactsOf(deps.chains, provider.id, params.fromChainId, params.account, swap);
    if (facts) await deps.builds.recordBuild({ ...facts, apiKey }, now);
  }
  return {
    calldata: swap.data,
    to: swap.to,
    value: swap.value.toString(),
    dexHash: provider.dexHash.toLowerCase(),
    estimatedGas: estimatedGas.toString(),
    gasLimit: (estimatedGas * 2n).toString(),
    ...(swap.contractToApprove ? { contractToApprove: swap.contractToApprove } : {}),
    outAmount: swap.amountOut.toString(),
    minOutAmount: swap.minimumReceived.toString(),
    aggregatorId: provider.id,
  };
}
