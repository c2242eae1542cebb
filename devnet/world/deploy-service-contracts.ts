import type { JsonRpcProvider, Wallet } from 'ethers';
import { loadArtifact } from '../../contracts-abi/artifacts';
import { DEFAULT_PROTOCOL_FEE_PIPS } from '../../shared/domain/protocol-fee';
import { TxQueue } from './tx-queue';

export interface ServiceContractsOptions {
  /** Wrapped native token (WETH9-compatible) of the chain. */
  weth: string;
  v2Factory: string;
  v3Factory: string;
  feeCollector: string;
  protocolFeeRecipient: string;
  executors: readonly string[];
  /** SwapRouter protocol fee in pips (1 pip = 1/100 bp); default DEFAULT_PROTOCOL_FEE_PIPS (15 bps). */
  protocolFeePips?: number;
  /** OrderExecutor's cap on the execution fee per order; default 500 bps. */
  maxFeeBps?: number;
}

export interface ServiceContracts {
  spender: string;
  swapRouter: string;
  orderExecutor: string;
}

export const DEFAULT_MAX_FEE_BPS = 500;

/**
 * Queues our contracts against the given wrapped token and factories, owned by the queue's sender:
 * TokenSpender (the SwapRouter is its only caller), SwapRouter, OrderExecutor with every executor registered.
 */
export function queueServiceContracts(queue: TxQueue, opts: ServiceContractsOptions): ServiceContracts {
  const owner = queue.address;
  const spenderArtifact = loadArtifact('TokenSpender');
  const routerArtifact = loadArtifact('SwapRouter');
  const executorArtifact = loadArtifact('OrderExecutor');
  const spender = queue.deploy('TokenSpender', spenderArtifact, [owner]);
  const swapRouter = queue.deploy('SwapRouter', routerArtifact, [
    owner,
    opts.weth,
    opts.v2Factory,
    opts.v3Factory,
    spender,
    opts.protocolFeeRecipient,
    opts.protocolFeePips ?? DEFAULT_PROTOCOL_FEE_PIPS,
  ]);
  const orderExecutor = queue.deploy('OrderExecutor', executorArtifact, [
    owner,
    opts.weth,
    opts.v2Factory,
    opts.v3Factory,
    opts.feeCollector,
    opts.maxFeeBps ?? DEFAULT_MAX_FEE_BPS,
  ]);
  queue.call(
    'TokenSpender.setCaller(SwapRouter)',
    spender,
    spenderArtifact.abi,
    'setCaller',
    [swapRouter, true],
    100_000n,
  );
  for (const executor of opts.executors) {
    queue.call(
      `OrderExecutor.setExecutor(${executor})`,
      orderExecutor,
      executorArtifact.abi,
      'setExecutor',
      [executor, true],
      100_000n,
    );
  }
  return { spender, swapRouter, orderExecutor };
}

/**
 * Deploys our contracts alone, e.g. on a forked chain whose wrapped token and Uniswap factories are the real
 * ones; deployWorld queues the same transactions after the fixture world.
 */
export async function deployServiceContracts(
  opts: ServiceContractsOptions & { provider: JsonRpcProvider; deployer: Wallet },
): Promise<ServiceContracts> {
  const queue = await TxQueue.create(opts.provider, opts.deployer);
  const contracts = queueServiceContracts(queue, opts);
  await queue.flush();
  return contracts;
}
