import { Contract, MaxUint256, type JsonRpcProvider, type Wallet } from 'ethers';
import {
  FACTOR_SCALE,
  moveFactor,
  v2AmountInForRatio,
  v3TargetSqrtPrice,
  v3TargetSqrtPriceInverse,
} from './market/move-amounts';
import { readV2Pool, readV3Pool, type PairToken } from './market/pool-price';
import { mined } from './wait-for-receipt';
import { ERC20_ABI, FAR_DEADLINE, V2_ROUTER_ABI, V3_QUOTER_V2_ABI, V3_SWAP_ROUTER_ABI } from './world/abis';

/** What the mover needs of a chain: a manifest chain entry or a DeployedWorld both fit. */
export interface MoverWorld {
  chainId?: number;
  contracts: {
    uniswapV2Factory: string;
    uniswapV2Router02: string;
    uniswapV3Factory: string;
    uniswapV3QuoterV2: string;
    uniswapV3SwapRouter: string;
  };
  tokens: PairToken[];
}

export interface MovePriceOptions {
  provider: JsonRpcProvider;
  chainId: number;
  world: MoverWorld;
  /** "BASE/QUOTE" by symbol: the price moved is that of one BASE in QUOTE. */
  pair: string;
  /** Fraction to move the price by: 0.05 = +5 %, -0.05 = −5 %. */
  by: number;
  dex?: 'v2' | 'v3';
  /** V3 fee tier; default 3000. */
  fee?: number;
  /** Trades and pays; its balance must cover the trade (the devnet's mover account is funded for 10 %+ moves). */
  signer: Wallet;
}

export interface MovePriceResult {
  pair: string;
  dex: 'v2' | 'v3';
  pool: string;
  before: number;
  after: number;
  tokenIn: string;
  amountIn: bigint;
  txHash: string;
}

export const DEFAULT_V3_FEE = 3000;
// eth_estimateGas under-estimates V2 swaps on ganache (timestamp-dependent accumulators): fixed limits instead.
const SWAP_GAS = 400_000n;
const V3_SWAP_GAS = 1_500_000n;
const APPROVE_GAS = 80_000n;

/**
 * Moves a pool's price by trading against it. V2: the exact input that reaches the target reserve ratio is
 * computed from the reserves (fee included). V3: an exact-input swap capped by sqrtPriceLimitX96 at the
 * target price, which the pool stops at exactly (QuoterV2 first checks that the balance reaches it).
 */
export async function movePrice(opts: MovePriceOptions): Promise<MovePriceResult> {
  if (opts.world.chainId !== undefined && opts.world.chainId !== opts.chainId) {
    throw new Error(`the given world is chain ${opts.world.chainId}, not ${opts.chainId}`);
  }
  const [base, quote] = resolvePair(opts.world, opts.pair);
  const factor = moveFactor(opts.by);
  const signer = opts.signer.connect(opts.provider);
  return (opts.dex ?? 'v2') === 'v2'
    ? moveV2(opts, signer, base, quote, factor)
    : moveV3(opts, signer, base, quote, factor, opts.fee ?? DEFAULT_V3_FEE);
}

async function moveV2(
  opts: MovePriceOptions,
  signer: Wallet,
  base: PairToken,
  quote: PairToken,
  factor: bigint,
): Promise<MovePriceResult> {
  const { uniswapV2Factory: factory, uniswapV2Router02: router } = opts.world.contracts;
  const before = await readV2Pool(opts.provider, factory, base, quote);
  // Up: buy base with quote (quote reserve / base reserve grows by factor). Down: sell base.
  const up = factor > FACTOR_SCALE;
  const [tokenIn, tokenOut] = up ? [quote, base] : [base, quote];
  const amountIn = up
    ? v2AmountInForRatio(before.reserveQuote, factor, FACTOR_SCALE)
    : v2AmountInForRatio(before.reserveBase, FACTOR_SCALE, factor);
  await ensureFunds(signer, tokenIn, router, amountIn);
  const tx = await new Contract(router, V2_ROUTER_ABI, signer).getFunction('swapExactTokensForTokens')(
    amountIn,
    0n,
    [tokenIn.address, tokenOut.address],
    signer.address,
    FAR_DEADLINE,
    { gasLimit: SWAP_GAS },
  );
  await mined(tx, 'the market move');
  const after = await readV2Pool(opts.provider, factory, base, quote);
  return result(opts, 'v2', before.address, before.price, after.price, tokenIn, amountIn, tx.hash as string);
}

async function moveV3(
  opts: MovePriceOptions,
  signer: Wallet,
  base: PairToken,
  quote: PairToken,
  factor: bigint,
  fee: number,
): Promise<MovePriceResult> {
  const { uniswapV3Factory: factory, uniswapV3QuoterV2, uniswapV3SwapRouter: router } = opts.world.contracts;
  const before = await readV3Pool(opts.provider, factory, base, quote, fee);
  // The pool price is token1 per token0; the pair's price is base in quote, i.e. the inverse if base is token1.
  const target = before.baseIsToken0
    ? v3TargetSqrtPrice(before.sqrtPriceX96, factor)
    : v3TargetSqrtPriceInverse(before.sqrtPriceX96, factor);
  const zeroForOne = target < before.sqrtPriceX96;
  const [token0, token1] = before.baseIsToken0 ? [base, quote] : [quote, base];
  const [tokenIn, tokenOut] = zeroForOne ? [token0, token1] : [token1, token0];
  const budget = (await new Contract(tokenIn.address, ERC20_ABI, opts.provider).getFunction('balanceOf')(
    signer.address,
  )) as bigint;
  if (budget === 0n)
    throw new Error(`${signer.address} holds no ${tokenIn.symbol} to move ${opts.pair} with`);
  const params = {
    tokenIn: tokenIn.address,
    tokenOut: tokenOut.address,
    amountIn: budget,
    fee,
    sqrtPriceLimitX96: target,
  };
  const quoter = new Contract(uniswapV3QuoterV2, V3_QUOTER_V2_ABI, opts.provider);
  const [, sqrtAfter] = (await quoter.getFunction('quoteExactInputSingle').staticCall(params)) as [
    bigint,
    bigint,
  ];
  if (sqrtAfter !== target) {
    throw new Error(
      `${signer.address} holds too little ${tokenIn.symbol} (${budget}) to move ${opts.pair} by ${opts.by}`,
    );
  }
  await ensureFunds(signer, tokenIn, router, budget);
  const tx = await new Contract(router, V3_SWAP_ROUTER_ABI, signer).getFunction('exactInputSingle')(
    {
      tokenIn: tokenIn.address,
      tokenOut: tokenOut.address,
      fee,
      recipient: signer.address,
      deadline: FAR_DEADLINE,
      amountIn: budget,
      amountOutMinimum: 0n,
      sqrtPriceLimitX96: target,
    },
    { gasLimit: V3_SWAP_GAS },
  );
  await mined(tx, 'the market move');
  const balanceAfter = (await new Contract(tokenIn.address, ERC20_ABI, opts.provider).getFunction(
    'balanceOf',
  )(signer.address)) as bigint;
  const after = await readV3Pool(opts.provider, factory, base, quote, fee);
  return result(
    opts,
    'v3',
    before.address,
    before.price,
    after.price,
    tokenIn,
    budget - balanceAfter,
    tx.hash as string,
  );
}

function result(
  opts: MovePriceOptions,
  dex: 'v2' | 'v3',
  pool: string,
  before: number,
  after: number,
  tokenIn: PairToken,
  amountIn: bigint,
  txHash: string,
): MovePriceResult {
  return { pair: opts.pair, dex, pool, before, after, tokenIn: tokenIn.symbol, amountIn, txHash };
}

function resolvePair(world: MoverWorld, pair: string): [PairToken, PairToken] {
  const symbols = pair.split('/');
  if (symbols.length !== 2) throw new Error(`pair must look like WETH/USDC, got ${pair}`);
  const [base, quote] = symbols.map((symbol) => {
    const token = world.tokens.find((t) => t.symbol.toLowerCase() === symbol.trim().toLowerCase());
    if (!token)
      throw new Error(
        `no token ${symbol} on this chain (known: ${world.tokens.map((t) => t.symbol).join(', ')})`,
      );
    return token;
  });
  return [base, quote];
}

/** Fails early on a short balance; approves the router once (unlimited) for the mover's later trades. */
async function ensureFunds(signer: Wallet, token: PairToken, spender: string, amount: bigint): Promise<void> {
  const erc20 = new Contract(token.address, ERC20_ABI, signer);
  const [balance, allowance] = (await Promise.all([
    erc20.getFunction('balanceOf')(signer.address),
    erc20.getFunction('allowance')(signer.address, spender),
  ])) as [bigint, bigint];
  if (balance < amount) {
    throw new Error(`${signer.address} holds ${balance} ${token.symbol}, the move needs ${amount}`);
  }
  if (allowance < amount) {
    const tx = await erc20.getFunction('approve')(spender, MaxUint256, { gasLimit: APPROVE_GAS });
    await mined(tx, `approving ${token.symbol} for the router`);
  }
}
