import {
  toBeHex,
  Wallet,
  zeroPadValue,
  type JsonRpcProvider,
  type Log,
  type TransactionReceipt,
} from 'ethers';
import { devnetKeys } from '../../devnet/keys';
import type { ManifestChain } from '../../devnet/manifest';
import type { ChainHandle } from '../../devnet/start-chain';
import { addressToBytes32, fundsDepositsOf } from '../../shared/bridges/across/relay-data';
import { spokePoolInterface } from '../../shared/bridges/contracts';
import { crossChainDexHash } from '../../shared/bridges/dex-hash';
import { INTENT_PROVIDER_ID } from '../../shared/bridges/intent/intent-deps';
import { erc20Interface } from '../../shared/chain/contract-interfaces';
import type { ApiClient, ApiResponse, Envelope } from './api-client';
import { mined } from '../../devnet/wait-for-receipt';
import { startService, type RunningService, type ServiceOptions } from './service-harness';

/**
 * What the cross-chain end-to-end suites start from: the whole service on two devnet chains, ORIGIN (1) and
 * DESTINATION (137), with the keeper as relayer; each chain's contracts and tokens, transactions sent and awaited,
 * and USDC → USDC deposits made straight on the origin SpokePool.
 */

export const ORIGIN = 1;
export const DESTINATION = 137;
/** The devnet's relayer wallet: the keeper fills intent deposits from it. */
export const RELAYER = devnetKeys(0).relayer.address;

/** One of the two chains, with the contracts the cross-chain suites use. */
export interface RelaySide {
  chain: ManifestChain;
  handle: ChainHandle;
  provider: JsonRpcProvider;
  /** The chain's token of that symbol (its address). */
  token(symbol: string): string;
  spokePool: string;
  bridge: string;
  entry: string;
}

/** The devnet's chain `i` (0: ORIGIN, 1: DESTINATION). */
export function relaySide(service: RunningService, i: number): RelaySide {
  const chain = service.devnet.manifest.chains[i]!;
  const handle = service.devnet.handles[i]!;
  return {
    chain,
    handle,
    provider: handle.provider,
    token: (symbol) => chain.tokens.find((t) => t.symbol === symbol)!.address,
    spokePool: chain.contracts.spokePool!,
    bridge: chain.contracts.lockReleaseBridge!,
    entry: chain.contracts.crossChainEntry!,
  };
}

export interface RelayE2e {
  service: RunningService;
  origin: RelaySide;
  destination: RelaySide;
}

/** Starts the service on devnet chains ORIGIN and DESTINATION (`options` as startService takes them). */
export async function startRelayE2e(options: ServiceOptions = {}): Promise<RelayE2e> {
  const service = await startService({
    ...options,
    devnetEnv: { DEVNET_CHAINS: `${ORIGIN},${DESTINATION}`, DEVNET_PORTS: '0,0', ...options.devnetEnv },
  });
  try {
    return { service, origin: relaySide(service, 0), destination: relaySide(service, 1) };
  } catch (err) {
    await service.close();
    throw err;
  }
}

/** The manifest's test account `index` on the origin (the suites' depositor). */
export function depositorWallet(origin: RelaySide, index = 0): Wallet {
  return new Wallet(origin.chain.accounts[index]!.privateKey, origin.provider);
}

/** Sends a transaction with a fixed gas limit and waits for it; throws unless it succeeded. */
export async function sendAndConfirm(
  wallet: Wallet,
  to: string,
  data: string,
  value = 0n,
): Promise<TransactionReceipt> {
  return mined(wallet.sendTransaction({ to, data, value, gasLimit: 1_000_000n }));
}

/** The ERC-20 balance of `owner` in `token` on the side's chain. */
export async function tokenBalance(s: RelaySide, token: string, owner: string): Promise<bigint> {
  const data = await s.provider.call({
    to: token,
    data: erc20Interface().encodeFunctionData('balanceOf', [owner]),
  });
  return erc20Interface().decodeFunctionResult('balanceOf', data)[0] as bigint;
}

/** The timestamp of the side's latest block (seconds). */
export async function chainTime(s: RelaySide): Promise<number> {
  return (await s.provider.getBlock('latest'))!.timestamp;
}

export interface SpokeDeposit {
  amount: bigint;
  recipient: string;
  /** What the recipient gets in the destination's USDC (default 99% of `amount`). */
  outputAmount?: bigint;
  /** The origin token deposited (default USDC). */
  inputSymbol?: string;
  /** Default RELAYER; ZeroAddress opens the deposit to any relayer. */
  exclusiveRelayer?: string;
  /** Seconds the exclusive relayer has the deposit to itself (default 30). */
  exclusivityParameter?: number;
  /** Seconds after the origin's clock (default an hour). */
  fillDeadlineIn?: number;
  /** Mine an origin block on top of the deposit (the keeper waits for INTENT_CONFIRMATIONS = 2); default true. */
  confirm?: boolean;
}

/**
 * A deposit straight on the origin SpokePool by the depositor (test account 0), asking the destination's USDC;
 * resolves its id, its receipt and the output it asks.
 */
export async function depositOnSpokePool(
  origin: RelaySide,
  destination: RelaySide,
  a: SpokeDeposit,
): Promise<{ depositId: string; receipt: TransactionReceipt; outputAmount: bigint }> {
  const wallet = depositorWallet(origin);
  const token = origin.token(a.inputSymbol ?? 'USDC');
  const outputAmount = a.outputAmount ?? (a.amount * 99n) / 100n;
  await sendAndConfirm(
    wallet,
    token,
    erc20Interface().encodeFunctionData('approve', [origin.spokePool, a.amount]),
  );
  const now = await chainTime(origin);
  const data = spokePoolInterface().encodeFunctionData('deposit', [
    addressToBytes32(wallet.address),
    addressToBytes32(a.recipient),
    addressToBytes32(token),
    addressToBytes32(destination.token('USDC')),
    a.amount,
    outputAmount,
    DESTINATION,
    addressToBytes32(a.exclusiveRelayer ?? RELAYER),
    now,
    now + (a.fillDeadlineIn ?? 3600),
    a.exclusivityParameter ?? 30,
    '0x',
  ]);
  const receipt = await sendAndConfirm(wallet, origin.spokePool, data);
  const [found] = fundsDepositsOf(receipt.logs, origin.spokePool, ORIGIN);
  if (a.confirm !== false) await origin.handle.mine();
  return { depositId: found!.relayData.depositId.toString(), receipt, outputAmount };
}

/** The topics of the FilledRelay events of an ORIGIN deposit. */
export function filledRelayTopics(depositId: string): string[] {
  return [
    spokePoolInterface().getEvent('FilledRelay')!.topicHash,
    zeroPadValue(toBeHex(ORIGIN), 32),
    zeroPadValue(toBeHex(BigInt(depositId)), 32),
  ];
}

/** FilledRelay events of an ORIGIN deposit on the destination. */
export function filledRelayLogs(destination: RelaySide, depositId: string): Promise<Log[]> {
  return destination.provider.getLogs({
    address: destination.spokePool,
    topics: filledRelayTopics(depositId),
    fromBlock: 0,
  });
}

/** POST /tx-status of an intent deposit, as a client reads it. */
export interface IntentTxStatus {
  status: string;
  toTxHash: string | null;
  toAmount: string | null;
}

export function postIntentTxStatus(
  client: ApiClient,
  depositTxHash: string,
): Promise<ApiResponse<Envelope<IntentTxStatus>>> {
  return client.post<IntentTxStatus>('/tx-status', {
    hash: depositTxHash,
    chainId: ORIGIN,
    dexHash: crossChainDexHash(INTENT_PROVIDER_ID),
  });
}

/** Runs of one keeper stage on one chain so far: the count of its tick-duration histogram. */
export async function stageRuns(service: RunningService, chainId: number, stage: string): Promise<number> {
  const text = await service.keepers[0]!.metrics.registry.metrics();
  const match = new RegExp(
    `tas_keeper_tick_duration_seconds_count\\{chain_id="${chainId}",stage="${stage}"\\} (\\d+)`,
  ).exec(text);
  return match ? Number(match[1]) : 0;
}

/**
 * Until the keeper has run `stage` on `side`'s chain `runs` more times, mining a block there between looks: what
 * the stage would do, it did. The evidence a negative check after it needs, where a fixed sleep proves nothing on a
 * slow machine.
 */
export async function afterStageRuns(
  service: RunningService,
  side: RelaySide,
  stage: string,
  runs: number,
  timeoutMs = 30_000,
): Promise<void> {
  const target = (await stageRuns(service, side.chain.chainId, stage)) + runs;
  const deadline = Date.now() + timeoutMs;
  while ((await stageRuns(service, side.chain.chainId, stage)) < target) {
    if (Date.now() > deadline) throw new Error(`the keeper ran ${stage} fewer than ${runs} more times`);
    await side.handle.mine();
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}
