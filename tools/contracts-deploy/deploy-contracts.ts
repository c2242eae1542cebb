import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { Contract, getAddress, type JsonRpcProvider, type Wallet } from 'ethers';
import type { ChainConfig, ChainContracts } from '../../shared/config/config-schema';
import { forkPriceOracles } from '../../devnet/fork/fork-price-oracles';
import { tokenListReference, writeChainEntry } from './chains-file';
import { checkDeployedCode } from './code-check';
import { planContracts, type ContractPlan, type PlannedContract } from './contract-plan';
import { deployCreate2, requireCreate2Proxy } from './create2';
import { knownChain, type Venues } from './known-chains';
import { ownerCall, type CallOutcome } from './owner-call';
import { resolveReleaseLimits, type ReleaseLimitArg } from './release-limits';
import { chainVenues } from './venues';
import { wiringWants } from './wiring';

export interface DeployOptions {
  /** The chain's RPC (uncached: the tool reads back what it has just changed). */
  provider: JsonRpcProvider;
  /** The deployer, connected to `provider`. */
  deployer: Wallet;
  rpcUrl: string;
  /** The chains file to write the chain's entry into. */
  out: string;
  venues?: Venues;
  executors: readonly string[];
  tokenList?: string;
  /** The multisig the timelock answers to, and the guardian (default: the deployer). */
  owner?: string;
  feeCollector?: string;
  /** The LockReleaseBridge's releaser (the keeper's bridge admin key); with a SpokePool, the bridges are deployed. */
  releaser?: string;
  /** Hourly release limits of the LockReleaseBridge, per token (without one a token's every release waits). */
  releaseLimits?: readonly ReleaseLimitArg[];
  timelockDelay: number;
}

export interface DeployResult {
  chainId: number;
  /** Transactions sent by this run (0 on a re-run with nothing to change). */
  sent: number;
  contracts: ChainContracts;
  timelock: string;
}

interface TokenListFile {
  tokens?: Array<{ chainId?: number; address?: string }>;
}

/** The shipped token list of a spec chain (config/tokenlists), if there is one. */
function shippedTokenList(chainId: number): string | undefined {
  const file = path.resolve(__dirname, '../../config/tokenlists', `${chainId}.json`);
  return existsSync(file) ? file : undefined;
}

function tokensOf(tokenList: string | undefined, chainId: number): string[] {
  if (!tokenList) return [];
  const parsed = JSON.parse(readFileSync(tokenList, 'utf8')) as TokenListFile;
  return (parsed.tokens ?? [])
    .filter((t) => t.chainId === chainId && typeof t.address === 'string')
    .map((t) => getAddress(t.address!));
}

function describe(outcome: CallOutcome, target: string, data: string): string {
  const at = (seconds: number) => new Date(seconds * 1000).toISOString();
  switch (outcome.kind) {
    case 'sent':
      return `sent ${outcome.hash}`;
    case 'executed':
      return `executed through the timelock ${outcome.hash}`;
    case 'scheduled':
      return `scheduled in the timelock, executable from ${at(outcome.executableAt)}: run again then`;
    case 'waiting':
      return `waiting in the timelock until ${at(outcome.executableAt)}: run again then`;
    case 'for-the-owner':
      return outcome.viaTimelock
        ? `for the owner to schedule in TimelockController ${outcome.owner}: target ${target} data ${data}`
        : `for the owner ${outcome.owner} to send: target ${target} data ${data}`;
  }
}

async function deployPlanned(deployer: Wallet, contract: PlannedContract, log: (line: string) => void) {
  const { deployed } = await deployCreate2(deployer, contract.initCode);
  log(`${contract.name} ${contract.address} ${deployed ? 'deployed' : 'already deployed'}`);
  return deployed;
}

/**
 * `npm run contracts:deploy`: deploys our contracts on a chain we do not own against its venues, wires them
 * (callers, executors, fee recipients, price sources, guardian), hands them to the timelock, checks their code, and
 * writes the chain's entry into the chains file. Everything is found before it is sent: a re-run sends only what
 * is missing, which on a deployed chain is nothing.
 */
export async function deployContracts(
  opts: DeployOptions,
  log: (line: string) => void,
): Promise<DeployResult> {
  const { deployer, provider } = opts;
  const chainId = Number((await provider.getNetwork()).chainId);
  await requireCreate2Proxy(provider, BigInt(chainId));
  const { venues, leftOut } = await chainVenues(provider, chainId, opts.venues);
  const known = knownChain(chainId);
  const owner = getAddress(opts.owner ?? deployer.address);
  const feeCollector = getAddress(opts.feeCollector ?? owner);
  const bridges = Boolean(venues.spokePool && opts.releaser);
  if (opts.releaseLimits?.length && !bridges) {
    throw new Error(
      '--release-limit sets the LockReleaseBridge: it needs --releaser and a chain with a SpokePool',
    );
  }
  const releaseLimits = await resolveReleaseLimits(provider, opts.releaseLimits ?? []);
  log(
    `contracts:deploy: chain ${chainId}${known ? ` (${known.name})` : ''}, deployer ${deployer.address}, ` +
      `owner ${owner}`,
  );
  for (const venue of leftOut) log(`venue left out: ${venue} has no code on this chain`);
  const plan: ContractPlan = planContracts({
    deployer: deployer.address,
    owner,
    timelockDelay: opts.timelockDelay,
    venues,
    protocolFeeRecipient: feeCollector,
    bridges,
  });
  const contracts = Object.values(plan);
  let sent = 0;
  for (const contract of contracts) if (await deployPlanned(deployer, contract, log)) sent++;
  for (const contract of contracts)
    await checkDeployedCode(provider, contract.name, contract.address, contract.artifact.deployedBytecode);
  log(`code of ${contracts.length} contracts checked against contracts-abi/artifacts`);

  const tokenList = opts.tokenList ?? shippedTokenList(chainId);
  const oracles = await forkPriceOracles(
    provider,
    venues.uniswapV3Factory,
    venues.weth,
    tokensOf(tokenList, chainId),
  );
  const wants = wiringWants(
    {
      plan,
      executors: opts.executors.map((e) => getAddress(e)),
      feeCollector,
      protocolFeeRecipient: feeCollector,
      guardian: owner,
      releaser: opts.releaser && getAddress(opts.releaser),
      releaseLimits,
      oracles,
    },
    deployer,
  );
  for (const want of wants) {
    if (await want.holds()) continue;
    const target = plan[want.contract]!;
    const currentOwner = (await new Contract(
      target.address,
      ['function owner() view returns (address)'],
      provider,
    ).getFunction('owner')()) as string;
    const call = await want.call();
    const outcome = await ownerCall(deployer, currentOwner, plan.TimelockController.address, call);
    if (outcome.kind !== 'waiting' && outcome.kind !== 'for-the-owner') sent++;
    log(`${want.label}: ${describe(outcome, call.target, call.data)}`);
  }
  log(
    sent === 0
      ? `nothing sent: chain ${chainId} is deployed and wired already; the addresses are kept`
      : `${sent} transaction${sent === 1 ? '' : 's'} sent`,
  );

  const chainContracts: ChainContracts = {
    multicall: venues.multicall,
    uniswapV2Factory: venues.uniswapV2Factory,
    uniswapV3Factory: venues.uniswapV3Factory,
    ...(venues.sushiswapV2Factory && { sushiswapV2Factory: venues.sushiswapV2Factory }),
    ...(venues.uniswapV4PoolManager && { uniswapV4PoolManager: venues.uniswapV4PoolManager }),
    ...(venues.balancerVault && {
      balancerVault: venues.balancerVault,
      balancerWeightedPoolFactory: venues.balancerWeightedPoolFactory,
      ...(known?.balancerFromBlock !== undefined && { balancerFromBlock: known.balancerFromBlock }),
    }),
    ...(venues.stableSwapFactory && { stableSwapFactory: venues.stableSwapFactory }),
    swapRouter: plan.SwapRouter.address,
    spender: plan.TokenSpender.address,
    orderExecutor: plan.OrderExecutor.address,
    ...(plan.CrossChainEntry &&
      plan.LockReleaseBridge && {
        spokePool: venues.spokePool,
        crossChainEntry: plan.CrossChainEntry.address,
        lockReleaseBridge: plan.LockReleaseBridge.address,
      }),
  };
  const entry: ChainConfig = {
    chainId,
    name: known?.name ?? `Chain ${chainId}`,
    rpcUrls: [opts.rpcUrl],
    nativeSymbol: known?.nativeSymbol ?? (await nativeSymbolOf(venues.weth, deployer)),
    nativeDecimals: known?.nativeDecimals ?? 18,
    wrappedNative: venues.weth,
    crossChainSource: Boolean(plan.CrossChainEntry),
    ...(known?.blockTimeSeconds !== undefined && { blockTimeSeconds: known.blockTimeSeconds }),
    ...(tokenList && { tokenList: tokenListReference(opts.out, tokenList) }),
    contracts: chainContracts,
  };
  const written = writeChainEntry(opts.out, entry);
  log(`chains file ${opts.out}: chain ${chainId} ${written}`);
  return { chainId, sent, contracts: chainContracts, timelock: plan.TimelockController.address };
}

/** A chain the tool does not know: its native coin is the wrapped token's symbol without the W (WETH → ETH). */
async function nativeSymbolOf(weth: string, runner: Wallet): Promise<string> {
  const symbol = (await new Contract(weth, ['function symbol() view returns (string)'], runner).getFunction(
    'symbol',
  )()) as string;
  return /^W[A-Z]/.test(symbol) ? symbol.slice(1) : symbol;
}
