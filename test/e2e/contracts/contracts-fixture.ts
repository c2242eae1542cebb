import {
  AbiCoder,
  type BaseContract,
  Contract,
  ContractFactory,
  Interface,
  Wallet,
  id,
  type JsonRpcProvider,
  type Log,
  type LogDescription,
  type TransactionReceipt,
} from 'ethers';
import { loadArtifact, type ContractName } from '../../../contracts-abi/artifacts';
import { mined } from '../../../devnet/wait-for-receipt';
import { devnetKeys, type DevnetKeys } from '../../../devnet/keys';
import { startChain, type ChainHandle } from '../../../devnet/start-chain';
import {
  FAR_DEADLINE,
  V2_FACTORY_ABI,
  V2_PAIR_ABI,
  V3_FACTORY_ABI,
  V3_POSITION_MANAGER_ABI,
  V3_QUOTER_V2_ABI,
  WETH_ABI,
} from '../../../devnet/world/abis';
import { sortTokens } from '../../../devnet/world/uniswap-pool-address';
import { fullRangeTicks, sqrtPriceX96FromAmounts } from '../../../devnet/world/v3-math';
import { deployWorld, type DeployedWorld } from '../../../devnet/world/deploy-world';
import { DEFAULT_MAX_FEE_BPS } from '../../../devnet/world/deploy-service-contracts';
import type { CalldataOrder } from '../../../shared/chain/execute-batch-calldata';
import {
  PAIR_AUTHORIZATION_TYPES,
  integratorOf,
  onchainOrderIdOf,
  orderRefOf,
} from '../../../shared/domain/pair-authorization';

/**
 * Contract tests on one devnet chain (anvil unless DEVNET_ENGINE says otherwise) with the fixture world: tokens,
 * seeded pools of every venue, our contracts.
 */

export const NATIVE = '0xEeeeeEeeeEeEeeEeEeEeeEEEeeeeEeeeeeeeEEeE';
export const ZERO_ADDRESS = '0x0000000000000000000000000000000000000000';
export const HOP_V2 = 0;
export const HOP_V3 = 1;
export const HOP_EXTERNAL = 2;
export const HOP_SUSHISWAP_V2 = 3;
export const HOP_V4 = 4;
export const HOP_BALANCER_WEIGHTED = 5;
export const HOP_STABLE_SWAP = 6;
/** PriceOracle's ORACLE_* kinds: a token's one price source, set by the owner with setOracle. */
export const ORACLE_NONE = 0;
export const ORACLE_USD_FEED = 1;
export const ORACLE_V3_WETH_POOL = 2;
/** Explicit limit for transactions expected to succeed: ganache's estimates on V2 swaps run short. */
export const GAS_LIMIT = 6_000_000n;
/** A receipt waited for longer than this fails the test with the transaction's hash (an in-process chain under load is slow). */

export interface Hop {
  kind: number;
  tokenOut: string;
  fee: number;
  target: string;
  data: string;
}

export interface RoutePath {
  weight: bigint;
  hops: Hop[];
}

export const v2Hop = (tokenOut: string): Hop => ({
  kind: HOP_V2,
  tokenOut,
  fee: 0,
  target: ZERO_ADDRESS,
  data: '0x',
});
export const v3Hop = (tokenOut: string, fee: number): Hop => ({
  kind: HOP_V3,
  tokenOut,
  fee,
  target: ZERO_ADDRESS,
  data: '0x',
});
export const externalHop = (tokenOut: string, target: string, data: string): Hop => ({
  kind: HOP_EXTERNAL,
  tokenOut,
  fee: 0,
  target,
  data,
});

export const sushiHop = (tokenOut: string): Hop => ({ ...v2Hop(tokenOut), kind: HOP_SUSHISWAP_V2 });
/** A hooks-free V4 pool: fee in the hop, tick spacing as its data. */
export const v4Hop = (tokenOut: string, fee: number, tickSpacing: number): Hop => ({
  kind: HOP_V4,
  tokenOut,
  fee,
  target: ZERO_ADDRESS,
  data: AbiCoder.defaultAbiCoder().encode(['int24'], [tickSpacing]),
});
export const balancerHop = (tokenOut: string, poolId: string): Hop => ({
  kind: HOP_BALANCER_WEIGHTED,
  tokenOut,
  fee: 0,
  target: ZERO_ADDRESS,
  data: AbiCoder.defaultAbiCoder().encode(['bytes32'], [poolId]),
});
export const stableHop = (tokenOut: string, pool: string): Hop => ({
  kind: HOP_STABLE_SWAP,
  tokenOut,
  fee: 0,
  target: pool,
  data: '0x',
});

export interface ContractsWorld {
  chain: ChainHandle;
  provider: JsonRpcProvider;
  world: DeployedWorld;
  keys: DevnetKeys;
  /** Test accounts (the manifest's `accounts`) connected to the chain. */
  accounts: Wallet[];
  deployer: Wallet;
  executor: Wallet;
  token(symbol: string): Contract;
  address(symbol: string): string;
  swapRouter: Contract;
  spender: Contract;
  orderExecutor: Contract;
  /** The OrderExecutor's PriceOracle (its `priceOracle()`): each token's price source, set by the owner. */
  priceOracle: Contract;
  stop(): Promise<void>;
}

export async function startContractsWorld(chainId = 1): Promise<ContractsWorld> {
  const chain = await startChain({ chainId });
  try {
    const provider = chain.provider;
    const keys = devnetKeys();
    const deployer = keys.deployer.connect(provider);
    const world = await deployWorld({
      provider,
      mining: chain,
      chainId,
      deployer,
      executors: keys.executors.map((e) => e.address),
      fund: keys.accounts.map((a) => a.address),
    });
    const address = (symbol: string): string => {
      const token = world.tokens.find((t) => t.symbol === symbol);
      if (!token) throw new Error(`no token ${symbol} on chain ${chainId}`);
      return token.address;
    };
    const testTokenAbi = loadArtifact('TestToken').abi;
    const orderExecutor = new Contract(
      world.contracts.orderExecutor,
      loadArtifact('OrderExecutor').abi,
      provider,
    );
    const priceOracle = new Contract(
      (await orderExecutor.getFunction('priceOracle')()) as string,
      loadArtifact('PriceOracle').abi,
      provider,
    );
    return {
      chain,
      provider,
      world,
      keys,
      accounts: keys.accounts.map((a) => a.connect(provider)),
      deployer,
      executor: keys.executors[0]!.connect(provider),
      token: (symbol) =>
        new Contract(address(symbol), symbol === world.tokens[0]!.symbol ? WETH_ABI : testTokenAbi, provider),
      address,
      swapRouter: new Contract(world.contracts.swapRouter, loadArtifact('SwapRouter').abi, provider),
      spender: new Contract(world.contracts.spender, loadArtifact('TokenSpender').abi, provider),
      orderExecutor,
      priceOracle,
      stop: () => chain.stop(),
    };
  } catch (err) {
    await chain.stop();
    throw err;
  }
}

// ---- chain control ----

export function snapshot(chain: ChainHandle): Promise<string> {
  return chain.snapshot();
}

/** Reverts to `id` and takes a fresh snapshot of the same state (a revert consumes its snapshot). */
export async function revertTo(chain: ChainHandle, snapshotId: string): Promise<string> {
  await chain.revert(snapshotId);
  return chain.snapshot();
}

export async function increaseTime(chain: ChainHandle, seconds: number): Promise<void> {
  await chain.increaseTime(seconds);
  await chain.mine();
}

export async function latestTimestamp(provider: JsonRpcProvider): Promise<bigint> {
  const block = await provider.getBlock('latest');
  if (!block) throw new Error('no latest block');
  return BigInt(block.timestamp);
}

// ---- transactions ----

/** Waits for a transaction expected to succeed and returns its receipt (polled: see waitForReceipt). */
export { mined };

/** A deployment's transaction mined successfully, by the same polling as mined(). */
async function deployed(contract: BaseContract): Promise<void> {
  const sent = contract.deploymentTransaction();
  if (!sent) throw new Error('not a deployment');
  await mined(Promise.resolve(sent));
}

export function call(contract: Contract, signer: Wallet, method: string, args: unknown[], value = 0n) {
  return (contract.connect(signer) as Contract).getFunction(method)(...args, { value, gasLimit: GAS_LIMIT });
}

/** Custom errors of all our contracts (and OpenZeppelin's they inherit), to decode any revert data. */
const ERRORS = (() => {
  const names: ContractName[] = [
    'SwapRouter',
    'OrderExecutor',
    'PriceOracle',
    'TokenSpender',
    'TestToken',
    'TestSwapCaller',
    'TestContractWallet',
    'TestPriceFeed',
    'StableSwapFactory',
    'StableSwapPool',
  ];
  const seen = new Set<string>();
  const fragments = names
    .flatMap((n) => loadArtifact(n).abi)
    .filter((f) => f.type === 'error')
    .filter((f) => {
      const key = `${f.name}(${(f.inputs ?? []).map((i) => i.type).join(',')})`;
      if (seen.has(key)) return false;
      seen.add(key);
      return true;
    });
  return new Interface(fragments);
})();

export interface DecodedRevert {
  name: string;
  args: unknown[];
}

export function decodeRevertData(data: string): DecodedRevert {
  const parsed = ERRORS.parseError(data);
  if (parsed) return { name: parsed.name, args: [...parsed.args] };
  if (data.startsWith('0x08c379a0')) {
    return { name: 'Error', args: [...AbiCoder.defaultAbiCoder().decode(['string'], `0x${data.slice(10)}`)] };
  }
  return { name: `unknown(${data})`, args: [] };
}

/**
 * Runs `method` as an eth_call from `signer` and returns the custom error it reverts with (the same execution
 * a transaction would run; a mined reverting transaction carries no revert data on ganache).
 */
export async function revertOf(
  contract: Contract,
  signer: Wallet,
  method: string,
  args: unknown[],
  value = 0n,
): Promise<DecodedRevert> {
  try {
    await (contract.connect(signer) as Contract).getFunction(method).staticCall(...args, { value });
  } catch (err) {
    const data = (err as { data?: string }).data;
    if (typeof data === 'string' && data.length >= 10) return decodeRevertData(data);
    throw err;
  }
  throw new Error(`${method} did not revert`);
}

export function parseLogs(
  contract: Contract,
  receipt: TransactionReceipt,
  eventName: string,
): LogDescription[] {
  const target = contract.target as string;
  return receipt.logs
    .filter((log: Log) => log.address.toLowerCase() === target.toLowerCase())
    .map((log) => contract.interface.parseLog(log))
    .filter((parsed): parsed is LogDescription => parsed !== null && parsed.name === eventName);
}

// ---- balances and expected amounts ----

export async function balanceOf(ctx: ContractsWorld, token: string, owner: string): Promise<bigint> {
  if (token === NATIVE) return ctx.provider.getBalance(owner);
  return (await new Contract(token, WETH_ABI, ctx.provider).getFunction('balanceOf')(owner)) as bigint;
}

/** UniswapV2Library.getAmountOut against the pair's current reserves. */
export async function v2AmountOut(ctx: ContractsWorld, tokenIn: string, tokenOut: string, amountIn: bigint) {
  const factory = new Contract(ctx.world.contracts.uniswapV2Factory, V2_FACTORY_ABI, ctx.provider);
  const pair = new Contract(
    (await factory.getFunction('getPair')(tokenIn, tokenOut)) as string,
    V2_PAIR_ABI,
    ctx.provider,
  );
  const [r0, r1] = (await pair.getFunction('getReserves')()) as [bigint, bigint, bigint];
  const [reserveIn, reserveOut] = BigInt(tokenIn) < BigInt(tokenOut) ? [r0, r1] : [r1, r0];
  const withFee = amountIn * 997n;
  return (withFee * reserveOut) / (reserveIn * 1000n + withFee);
}

/** QuoterV2's exact-input quote against the pool's current state (exact: it runs the same swap). */
export async function v3AmountOut(
  ctx: ContractsWorld,
  tokenIn: string,
  tokenOut: string,
  fee: number,
  amountIn: bigint,
) {
  const quoter = new Contract(ctx.world.contracts.uniswapV3QuoterV2, V3_QUOTER_V2_ABI, ctx.provider);
  const [amountOut] = (await quoter
    .getFunction('quoteExactInputSingle')
    .staticCall({ tokenIn, tokenOut, amountIn, fee, sqrtPriceLimitX96: 0n })) as [bigint];
  return amountOut;
}

// ---- accounts and contracts ----

export async function deployTestContract(ctx: ContractsWorld, name: ContractName, args: unknown[] = []) {
  const artifact = loadArtifact(name);
  const factory = new ContractFactory(artifact.abi, artifact.bytecode, ctx.accounts[3]!);
  const contract = await factory.deploy(...args, { gasLimit: GAS_LIMIT });
  await deployed(contract);
  return new Contract(await contract.getAddress(), artifact.abi, ctx.provider);
}

/**
 * A contract whose every call reverts with exactly `revertData` (raw bytecode: CODECOPY of the data appended to the
 * runtime, then REVERT), to stand for a pool, token or source answering whatever bytes it likes.
 */
export async function deployRevertingContract(ctx: ContractsWorld, revertData: string): Promise<string> {
  const data = revertData.slice(2);
  const size = data.length / 2;
  if (size === 0 || size > 0xff - 12) throw new Error(`revert data of ${size} bytes not supported`);
  const hex = (n: number) => n.toString(16).padStart(2, '0');
  // PUSH1 size PUSH1 12 PUSH1 0 CODECOPY PUSH1 size PUSH1 0 REVERT, then the data (the runtime's 12 bytes first).
  const runtime = `60${hex(size)}600c60003960${hex(size)}6000fd${data}`;
  // PUSH1 len DUP1 PUSH1 11 PUSH1 0 CODECOPY PUSH1 0 RETURN: returns what follows these 11 bytes as the code.
  const initCode = `0x60${hex(runtime.length / 2)}80600b6000396000f3${runtime}`;
  const deployment = await new ContractFactory([], initCode, ctx.accounts[3]!).deploy({
    gasLimit: GAS_LIMIT,
  });
  await deployed(deployment);
  return deployment.getAddress();
}

/**
 * Fresh wallets (deterministic per label) with native coins for gas, `amount` of `token` minted and an
 * allowance of `allowance` to `spender`.
 */
export async function fundedWallets(
  ctx: ContractsWorld,
  label: string,
  count: number,
  token: string,
  amount: bigint,
  spender: string,
  allowance: bigint,
): Promise<Wallet[]> {
  const funder = ctx.accounts[3]!;
  const wallets = Array.from({ length: count }, (_, i) => new Wallet(id(`${label}/${i}`), ctx.provider));
  const testToken = new Contract(token, loadArtifact('TestToken').abi, funder);
  for (const wallet of wallets) {
    await mined(funder.sendTransaction({ to: wallet.address, value: 10n ** 18n }));
    if (amount > 0n) await mined(testToken.getFunction('mint')(wallet.address, amount));
    if (allowance > 0n) {
      await mined((testToken.connect(wallet) as Contract).getFunction('approve')(spender, allowance));
    }
  }
  return wallets;
}

// ---- EIP-712 pair authorization and orders ----

export { PAIR_AUTHORIZATION_TYPES };

/** The API key the contract tests' orders are created with, and the integrator it stands for on-chain. */
export const TEST_API_KEY = 'contracts-test-key';
export const TEST_INTEGRATOR = integratorOf(TEST_API_KEY);

export function orderExecutorDomain(ctx: ContractsWorld) {
  return {
    name: 'TradeAggregationService',
    version: '1',
    chainId: ctx.world.chainId,
    verifyingContract: ctx.world.contracts.orderExecutor,
  };
}

export interface PairSigning {
  /** Default TEST_INTEGRATOR. */
  integrator?: string;
  /** Default 0: the contract's own deviation. */
  maxDeviationBps?: number;
  /** Default DEFAULT_MAX_FEE_BPS: the cap the world's OrderExecutor is deployed with. */
  maxFeeBps?: number;
}

/**
 * The maker's pair authorization for one integrator, signed by `signer` (the maker itself, or the owner key of a
 * contract-wallet maker, whose ERC-1271 check recovers the same digest).
 */
export function signPair(
  ctx: ContractsWorld,
  signer: Wallet,
  maker: string,
  tokenIn: string,
  tokenOut: string,
  opts: PairSigning = {},
) {
  return signer.signTypedData(orderExecutorDomain(ctx), PAIR_AUTHORIZATION_TYPES, {
    maker,
    tokenIn,
    tokenOut,
    integrator: opts.integrator ?? TEST_INTEGRATOR,
    maxDeviationBps: opts.maxDeviationBps ?? 0,
    maxFeeBps: opts.maxFeeBps ?? DEFAULT_MAX_FEE_BPS,
  });
}

/**
 * OrderExecutor.Order, as the keeper encodes it. The index is its bit in the contract's executed bitmap (unique per
 * order; see executionIndices); maxFeeBps the fee cap the maker signed (DEFAULT_MAX_FEE_BPS in these tests unless a
 * case says otherwise).
 */
export type OrderInput = CalldataOrder;

export interface GroupInput {
  tokenIn: string;
  tokenOut: string;
  paths: RoutePath[];
  orders: OrderInput[];
}

/** The keeper's convention: ref = keccak256 of the service's order id string. */
export const orderRef = (serviceId: string): string => orderRefOf(serviceId);

/**
 * Fresh execution indices for the contract tests' orders: consecutive, as the store assigns them to orders claimed
 * together, and unique per chain (one counter per test world: an index executes once).
 */
export function executionIndices(start = 1n): () => bigint {
  let next = start;
  return () => next++;
}

/** OrderExecutor.orderId of an order in a group of tokenIn -> tokenOut: the id its events carry. */
export function onchainIdOf(order: OrderInput, tokenIn: string, tokenOut: string): string {
  return onchainOrderIdOf({ ...order, tokenIn, tokenOut });
}

// ---- price bound and contract-wallet makers ----

/**
 * The least an order of `amountIn` may receive whatever route its executor passes: the contract's own
 * minimumAtBound(amountIn, priceBound(tokenIn, tokenOut), maker deviation), read from the chain's current state
 * (0 when the pair has no bound).
 */
export async function minimumAtBound(
  ctx: ContractsWorld,
  tokenIn: string,
  tokenOut: string,
  amountIn: bigint,
  makerDeviationBps = 0,
): Promise<bigint> {
  const bound = (await ctx.orderExecutor.getFunction('priceBound')(tokenIn, tokenOut)) as bigint;
  return (await ctx.orderExecutor.getFunction('minimumAtBound')(
    amountIn,
    bound,
    makerDeviationBps,
  )) as bigint;
}

/**
 * A TestContractWallet maker (a 1-of-1 wallet: its owner key signs, ERC-1271) owned by a fresh funded key, holding
 * `amount` of the TestToken `token` (minted to it) with an allowance of `allowance` to `spender` that the wallet
 * itself gave (the owner calling execute), and the given receive mode (0 accept, 1 revert, 2 burn all gas).
 */
export async function contractWalletMaker(
  ctx: ContractsWorld,
  label: string,
  token: string,
  amount: bigint,
  spender: string,
  allowance: bigint,
  receiveMode = 0,
): Promise<{ wallet: Contract; address: string; owner: Wallet }> {
  const [owner] = await fundedWallets(ctx, `${label}/owner`, 1, token, 0n, spender, 0n);
  const wallet = (await deployTestContract(ctx, 'TestContractWallet', [owner!.address])).connect(
    owner!,
  ) as Contract;
  const address = await wallet.getAddress();
  const testToken = new Contract(token, loadArtifact('TestToken').abi, ctx.accounts[3]!);
  if (amount > 0n) await mined(testToken.getFunction('mint')(address, amount));
  if (allowance > 0n) {
    const approve = testToken.interface.encodeFunctionData('approve', [spender, allowance]);
    await mined(wallet.getFunction('execute')(token, 0n, approve, { gasLimit: GAS_LIMIT }));
  }
  if (receiveMode !== 0) {
    await mined(wallet.getFunction('setReceiveMode')(receiveMode, { gasLimit: GAS_LIMIT }));
  }
  return { wallet, address, owner: owner! };
}

// ---- Uniswap V3 positions ----

/**
 * A liquidity provider for narrow WETH/USDC 0.3% positions: approves the position manager once, then each `mint`
 * adds 20 WETH / 60,000 USDC desired between two ticks and returns its receipt (the pool's Mint event is in it).
 */
export async function wethUsdcMinter(ctx: ContractsWorld, lp: Wallet) {
  const [weth, usdc] = [ctx.address('WETH'), ctx.address('USDC')];
  const [token0, token1] = sortTokens(weth, usdc);
  const manager = new Contract(ctx.world.contracts.uniswapV3PositionManager, V3_POSITION_MANAGER_ABI, lp);
  for (const symbol of ['WETH', 'USDC']) {
    await mined(
      (ctx.token(symbol).connect(lp) as Contract).getFunction('approve')(manager.target, 2n ** 256n - 1n),
    );
  }
  const desired = (token: string): bigint => (token === weth ? 20n * 10n ** 18n : 60_000n * 10n ** 6n);
  return {
    mint: (tickLower: number, tickUpper: number): Promise<TransactionReceipt> =>
      mined(
        manager.getFunction('mint')(
          {
            token0,
            token1,
            fee: 3000,
            tickLower,
            tickUpper,
            amount0Desired: desired(token0),
            amount1Desired: desired(token1),
            amount0Min: 0n,
            amount1Min: 0n,
            recipient: lp.address,
            deadline: FAR_DEADLINE,
          },
          { gasLimit: GAS_LIMIT },
        ),
      ),
  };
}

/** The configured Uniswap V3 factory's pool of (a, b) at `fee`, or the zero address. */
export async function v3PoolOf(ctx: ContractsWorld, a: string, b: string, fee: number): Promise<string> {
  const factory = new Contract(ctx.world.contracts.uniswapV3Factory, V3_FACTORY_ABI, ctx.provider);
  return (await factory.getFunction('getPool')(a, b, fee)) as string;
}

/**
 * What anyone can do: creates the V3 pool of two TestTokens at `fee` (through the position manager, so the configured
 * factory's own pool), priced so that `amountA` of `tokenA` is worth `amountB` of `tokenB`, and adds those amounts as
 * one full-range position of `lp` (tokens minted to it). Returns the pool's address.
 */
export async function createV3Pool(
  ctx: ContractsWorld,
  lp: Wallet,
  fee: number,
  [tokenA, amountA]: [string, bigint],
  [tokenB, amountB]: [string, bigint],
): Promise<string> {
  const manager = new Contract(ctx.world.contracts.uniswapV3PositionManager, V3_POSITION_MANAGER_ABI, lp);
  const testTokenAbi = loadArtifact('TestToken').abi;
  for (const [token, amount] of [
    [tokenA, amountA],
    [tokenB, amountB],
  ] as const) {
    const testToken = new Contract(token, testTokenAbi, lp);
    await mined(testToken.getFunction('mint')(lp.address, amount, { gasLimit: GAS_LIMIT }));
    await mined(testToken.getFunction('approve')(manager.target, amount, { gasLimit: GAS_LIMIT }));
  }
  const [token0, token1] = sortTokens(tokenA, tokenB);
  const [amount0, amount1] = token0 === tokenA ? [amountA, amountB] : [amountB, amountA];
  await mined(
    manager.getFunction('createAndInitializePoolIfNecessary')(
      token0,
      token1,
      fee,
      sqrtPriceX96FromAmounts(amount0, amount1),
      { gasLimit: GAS_LIMIT },
    ),
  );
  const { tickLower, tickUpper } = fullRangeTicks(fee);
  await mined(
    manager.getFunction('mint')(
      {
        token0,
        token1,
        fee,
        tickLower,
        tickUpper,
        amount0Desired: amount0,
        amount1Desired: amount1,
        amount0Min: 0n,
        amount1Min: 0n,
        recipient: lp.address,
        deadline: FAR_DEADLINE,
      },
      { gasLimit: GAS_LIMIT },
    ),
  );
  return v3PoolOf(ctx, tokenA, tokenB, fee);
}
