/**
 * StableSwapPool.getDy (contracts-abi/src/StableSwapPool.sol) in bigint, operation by operation: the same
 * evaluation order, the same floor divisions and the same reverts (Solidity 0.8's checked arithmetic), so a quote
 * is exactly what the pool pays. Change both together.
 */
export interface StableSwapMathState {
  /** Coin balances in base units. */
  balance0: bigint;
  balance1: bigint;
  /** 10^(18 - decimals) of each coin. */
  rate0: bigint;
  rate1: bigint;
  /** A · A_PRECISION, as the pool stores it. */
  amp: bigint;
  /** Out of FEE_DENOMINATOR. */
  fee: bigint;
  /** D of these balances when already known (stableSwapInvariant): saves its Newton iteration on every quote. */
  invariant?: bigint;
}

export const STABLE_A_PRECISION = 100n;
export const STABLE_FEE_DENOMINATOR = 10n ** 10n;
const N_COINS = 2n;
const MAX_ITERATIONS = 255;
const UINT256_MAX = (1n << 256n) - 1n;
/** The largest b for which 2y + b fits uint256 whenever y * y does (y < 2^128). */
const SUM_SAFE_B = UINT256_MAX - (1n << 129n);

/** Where the pool reverts (overflow, underflow, division by zero, no convergence). */
class PoolRevert extends Error {}

function checked(value: bigint): bigint {
  if (value < 0n || value > UINT256_MAX) throw new PoolRevert();
  return value;
}
const add = (a: bigint, b: bigint): bigint => checked(a + b);
const sub = (a: bigint, b: bigint): bigint => checked(a - b);
const mul = (a: bigint, b: bigint): bigint => checked(a * b);
function div(a: bigint, b: bigint): bigint {
  if (b === 0n) throw new PoolRevert();
  return a / b;
}
const within1 = (a: bigint, b: bigint): boolean => (a > b ? a - b <= 1n : b - a <= 1n);

/** _getD: the invariant D of 18-decimal balances x0, x1. */
function stableSwapD(x0: bigint, x1: bigint, amp: bigint): bigint {
  const s = add(x0, x1);
  if (s === 0n) return 0n;
  let d = s;
  const ann = mul(amp, N_COINS);
  for (let k = 0; k < MAX_ITERATIONS; k++) {
    const dp = div(mul(div(mul(d, d), mul(x0, N_COINS)), d), mul(x1, N_COINS));
    const previous = d;
    const numerator = mul(add(div(mul(ann, s), STABLE_A_PRECISION), mul(dp, N_COINS)), d);
    const denominator = add(
      div(mul(sub(ann, STABLE_A_PRECISION), d), STABLE_A_PRECISION),
      mul(N_COINS + 1n, dp),
    );
    d = div(numerator, denominator);
    if (within1(d, previous)) return d;
  }
  throw new PoolRevert();
}

/** _getY: the other coin's 18-decimal balance that keeps D when one coin's is x. */
function stableSwapY(x: bigint, d: bigint, amp: bigint): bigint {
  const ann = mul(amp, N_COINS);
  let c = div(mul(d, d), mul(x, N_COINS));
  c = div(mul(mul(c, d), STABLE_A_PRECISION), mul(ann, N_COINS));
  const b = add(x, div(mul(d, STABLE_A_PRECISION), ann));
  let y = d;
  // The hot loop of every quote through a stable pool: the same checked operations as above, written out, with
  // 2y + b - D formed as 2y + (b - D). Past the square's check y < 2^128, so 2y + b cannot exceed uint256 unless b
  // is within 2^129 of it; such a b takes the step-by-step checks instead.
  const bMinusD = b - d;
  const sumCannotOverflow = b <= SUM_SAFE_B;
  for (let k = 0; k < MAX_ITERATIONS; k++) {
    const previous = y;
    const yy = y * y;
    if (yy > UINT256_MAX) throw new PoolRevert();
    const numerator = yy + c;
    if (numerator > UINT256_MAX) throw new PoolRevert();
    if (!sumCannotOverflow && 2n * y + b > UINT256_MAX) throw new PoolRevert();
    const denominator = (y << 1n) + bMinusD;
    if (denominator <= 0n) throw new PoolRevert();
    y = numerator / denominator;
    const step = y - previous;
    if (step <= 1n && step >= -1n) return y;
  }
  throw new PoolRevert();
}

/** D of the pool's balances (18-decimal); undefined where the pool would revert computing it. */
export function stableSwapInvariant(pool: Omit<StableSwapMathState, 'invariant'>): bigint | undefined {
  try {
    return stableSwapD(mul(pool.balance0, pool.rate0), mul(pool.balance1, pool.rate1), pool.amp);
  } catch (err) {
    if (err instanceof PoolRevert) return undefined;
    throw err;
  }
}

function getDy(pool: StableSwapMathState, zeroForOne: boolean, dx: bigint): bigint {
  if (dx === 0n) throw new PoolRevert();
  const xp0 = mul(pool.balance0, pool.rate0);
  const xp1 = mul(pool.balance1, pool.rate1);
  const d = pool.invariant ?? stableSwapD(xp0, xp1, pool.amp);
  const [xpIn, xpOut, rateIn, rateOut] = zeroForOne
    ? [xp0, xp1, pool.rate0, pool.rate1]
    : [xp1, xp0, pool.rate1, pool.rate0];
  const y = stableSwapY(add(xpIn, mul(dx, rateIn)), d, pool.amp);
  const dy = sub(sub(xpOut, y), 1n);
  const dyFee = div(mul(dy, pool.fee), STABLE_FEE_DENOMINATOR);
  return div(sub(dy, dyFee), rateOut);
}

/** Output of `amountIn` of coin 0 (zeroForOne) or coin 1; undefined where the pool would revert. */
export function stableSwapAmountOut(
  pool: StableSwapMathState,
  zeroForOne: boolean,
  amountIn: bigint,
): bigint | undefined {
  if (amountIn < 0n || amountIn > UINT256_MAX) return undefined;
  try {
    return getDy(pool, zeroForOne, amountIn);
  } catch (err) {
    if (err instanceof PoolRevert) return undefined;
    throw err;
  }
}
