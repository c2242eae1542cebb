import { Contract, ContractFactory, MaxUint256, type Wallet } from 'ethers';
import { loadArtifact } from '../../../contracts-abi/artifacts';
import { devnetKeys } from '../../../devnet/keys';
import { startChain, type ChainHandle } from '../../../devnet/start-chain';
import { stableSwapAmountOut, type StableSwapMathState } from '../../../shared/routing/math/stable-swap-math';
import { decodeRevertData, GAS_LIMIT, mined } from './contracts-fixture';

/**
 * Our StableSwapFactory and StableSwapPool on one anvil chain: getDy, the TypeScript mirror and what exchange
 * actually pays agree to the unit over many random trades between a 6- and an 18-decimal coin; liquidity in and
 * out; a 100,000 USDC trade on a deep pool loses a few basis points.
 */

jest.setTimeout(180_000);

const E6 = 10n ** 6n;
const E18 = 10n ** 18n;
const AMP = 2000n;
const FEE = 4_000_000n; // 0.04% of 1e10

const keys = devnetKeys();
let chain: ChainHandle;
let owner: Wallet;
let trader: Wallet;
let factory: Contract;
const tokens: Record<string, Contract> = {};

async function deploy(name: 'TestToken' | 'StableSwapFactory', args: unknown[]): Promise<Contract> {
  const artifact = loadArtifact(name);
  const contract = await new ContractFactory(artifact.abi, artifact.bytecode, owner).deploy(...args);
  await contract.waitForDeployment();
  return new Contract(await contract.getAddress(), artifact.abi, owner);
}

const poolAt = (address: string, signer: Wallet): Contract =>
  new Contract(address, loadArtifact('StableSwapPool').abi, signer);

async function createPool(a: string, b: string, amp: bigint, fee: bigint): Promise<Contract> {
  const [ta, tb] = [await tokens[a]!.getAddress(), await tokens[b]!.getAddress()];
  await mined(factory.getFunction('createPool')(ta, tb, amp, fee));
  return poolAt((await factory.getFunction('getPool')(ta, tb)) as string, owner);
}

/** Mints both coins to `owner` and deposits them. */
async function addLiquidity(pool: Contract, amounts: [bigint, bigint], from = owner): Promise<bigint> {
  for (const [k, amount] of amounts.entries()) {
    const coin = new Contract(
      (await pool.getFunction('coins')(k)) as string,
      loadArtifact('TestToken').abi,
      from,
    );
    await mined(coin.getFunction('mint')(from.address, amount));
    await mined(coin.getFunction('approve')(await pool.getAddress(), MaxUint256));
  }
  const connected = pool.connect(from) as Contract;
  const shares = (await connected.getFunction('addLiquidity').staticCall(amounts, 0n)) as bigint;
  await mined(connected.getFunction('addLiquidity')(amounts, 0n, { gasLimit: GAS_LIMIT }));
  return shares;
}

async function mathState(pool: Contract): Promise<StableSwapMathState> {
  const [balance0, balance1, rate0, rate1, amp, fee] = (await Promise.all([
    pool.getFunction('balances')(0),
    pool.getFunction('balances')(1),
    pool.getFunction('rates')(0),
    pool.getFunction('rates')(1),
    pool.getFunction('A')(),
    pool.getFunction('fee')(),
  ])) as bigint[];
  return { balance0: balance0!, balance1: balance1!, rate0: rate0!, rate1: rate1!, amp: amp!, fee: fee! };
}

function coinOf(pool: Contract, k: number, signer: Wallet): Promise<Contract> {
  return (pool.getFunction('coins')(k) as Promise<string>).then(
    (address) => new Contract(address, loadArtifact('TestToken').abi, signer),
  );
}

/** Swaps `dx` of coin i from the trader (minted first) and returns what arrived. */
async function exchange(pool: Contract, i: number, dx: bigint): Promise<bigint> {
  const [coinIn, coinOut] = [await coinOf(pool, i, trader), await coinOf(pool, 1 - i, trader)];
  await mined(coinIn.getFunction('mint')(trader.address, dx));
  await mined(coinIn.getFunction('approve')(await pool.getAddress(), dx));
  const before = (await coinOut.getFunction('balanceOf')(trader.address)) as bigint;
  await mined(
    (pool.connect(trader) as Contract).getFunction('exchange')(i, 1 - i, dx, 0n, { gasLimit: GAS_LIMIT }),
  );
  return ((await coinOut.getFunction('balanceOf')(trader.address)) as bigint) - before;
}

async function revertName(promise: Promise<unknown>, iface: Contract): Promise<string> {
  try {
    await promise;
  } catch (err) {
    const data = (err as { data?: string }).data;
    if (typeof data === 'string' && data.length >= 10) {
      return iface.interface.parseError(data)?.name ?? decodeRevertData(data).name;
    }
    throw err;
  }
  throw new Error('did not revert');
}

/** Deterministic sizes: a 32-bit xorshift, so a failure reproduces. */
function randomSizes(seed: number, count: number, max: bigint): bigint[] {
  let state = seed;
  const next = (): number => {
    state ^= state << 13;
    state ^= state >>> 17;
    state ^= state << 5;
    return (state >>> 0) / 2 ** 32;
  };
  // Log-uniform from 1 base unit up to `max`: tiny, medium and pool-moving trades alike.
  return Array.from({ length: count }, () => {
    const digits = next() * Math.log10(Number(max));
    return BigInt(Math.max(1, Math.floor(10 ** digits)));
  });
}

beforeAll(async () => {
  chain = await startChain({ chainId: 1 });
  owner = keys.deployer.connect(chain.provider);
  trader = keys.accounts[0]!.connect(chain.provider);
  tokens.USDC = await deploy('TestToken', ['USD Coin', 'USDC', 6]);
  tokens.USDT = await deploy('TestToken', ['Tether USD', 'USDT', 6]);
  tokens.DAI = await deploy('TestToken', ['Dai Stablecoin', 'DAI', 18]);
  factory = await deploy('StableSwapFactory', [owner.address]);
});

afterAll(async () => {
  await chain?.stop();
});

describe('StableSwapFactory', () => {
  it('creates one pool per pair, sorted, and vouches only for its own pools', async () => {
    const pool = await createPool('DAI', 'USDC', AMP, FEE);
    const [usdc, dai] = [await tokens.USDC!.getAddress(), await tokens.DAI!.getAddress()];
    const address = await pool.getAddress();
    expect(await factory.getFunction('getPool')(usdc, dai)).toBe(address);
    expect(await factory.getFunction('getPool')(dai, usdc)).toBe(address);
    expect(await factory.getFunction('isPool')(address)).toBe(true);
    expect(await factory.getFunction('isPool')(usdc)).toBe(false);
    expect(await factory.getFunction('allPoolsLength')()).toBe(1n);
    const [coin0, coin1] = [await pool.getFunction('coins')(0), await pool.getFunction('coins')(1)];
    expect([coin0, coin1]).toEqual(BigInt(usdc) < BigInt(dai) ? [usdc, dai] : [dai, usdc]);
    expect(await pool.getFunction('A')()).toBe(AMP * 100n);
    expect(await pool.getFunction('fee')()).toBe(FEE);
    expect(await pool.getFunction('factory')()).toBe(await factory.getAddress());

    expect(await revertName(factory.getFunction('createPool').staticCall(usdc, dai, AMP, FEE), factory)).toBe(
      'PoolExists',
    );
    const stranger = factory.connect(trader) as Contract;
    expect(
      await revertName(
        stranger.getFunction('createPool').staticCall(usdc, await tokens.USDT!.getAddress(), AMP, FEE),
        factory,
      ),
    ).toBe('OwnableUnauthorizedAccount');
    expect(
      await revertName(factory.getFunction('createPool').staticCall(usdc, usdc, AMP, FEE), factory),
    ).toBe('IdenticalTokens');
  });
});

describe('StableSwapPool USDC(6)/DAI(18), 10M a side, A = 2000, fee 0.04%', () => {
  let pool: Contract;
  let usdcIndex: number;

  beforeAll(async () => {
    const [usdc, dai] = [await tokens.USDC!.getAddress(), await tokens.DAI!.getAddress()];
    pool = poolAt((await factory.getFunction('getPool')(usdc, dai)) as string, owner);
    usdcIndex = (await pool.getFunction('coins')(0)) === usdc ? 0 : 1;
    const amounts: [bigint, bigint] =
      usdcIndex === 0 ? [10_000_000n * E6, 10_000_000n * E18] : [10_000_000n * E18, 10_000_000n * E6];
    const shares = await addLiquidity(pool, amounts);
    // The first deposit mints D: 20M at 18 decimals for a balanced pool.
    expect(shares).toBe(20_000_000n * E18);
  });

  it('pays exactly getDy, which the TypeScript math reproduces, over 40 random trades both ways', async () => {
    const sizes = randomSizes(0x5eed, 40, 3_000_000n * E18);
    for (const [n, size] of sizes.entries()) {
      const i = n % 2;
      // Sizes are drawn at 18 decimals; the 6-decimal coin gets the same value in its own units (at least 1).
      const dx = (i === usdcIndex ? size / 10n ** 12n : size) || 1n;
      const state = await mathState(pool);
      const quoted = (await pool.getFunction('getDy')(i, 1 - i, dx)) as bigint;
      expect(stableSwapAmountOut(state, i === 0, dx)).toBe(quoted);
      expect(await exchange(pool, i, dx)).toBe(quoted);
      const after = await mathState(pool);
      expect([after.balance0, after.balance1]).toEqual(
        i === 0
          ? [state.balance0 + dx, state.balance1 - quoted]
          : [state.balance0 - quoted, state.balance1 + dx],
      );
    }
  });

  it('reverts where the math says undefined', async () => {
    const state = await mathState(pool);
    expect(stableSwapAmountOut(state, true, 0n)).toBeUndefined();
    expect(await revertName(pool.getFunction('getDy').staticCall(0, 1, 0n), pool)).toBe('ZeroAmount');
    expect(await revertName(pool.getFunction('getDy').staticCall(0, 0, 1n), pool)).toBe('BadIndex');
    // Anything the balances cannot absorb without overflowing reverts (a panic, no custom error).
    expect(stableSwapAmountOut(state, true, MaxUint256)).toBeUndefined();
    await expect(pool.getFunction('getDy').staticCall(0, 1, MaxUint256)).rejects.toThrow();
    const large = 2n ** 200n;
    expect(stableSwapAmountOut(state, true, large)).toBe(await pool.getFunction('getDy')(0, 1, large));
  });
});

describe('StableSwapPool liquidity (USDT(6)/DAI(18), 1M a side)', () => {
  it('mints fewer shares for a one-sided deposit than for the same value in proportion, and removes pro rata', async () => {
    const pool = await createPool('USDT', 'DAI', AMP, FEE);
    const usdtIndex = (await pool.getFunction('coins')(0)) === (await tokens.USDT!.getAddress()) ? 0 : 1;
    const side = (usdt: bigint, dai: bigint): [bigint, bigint] =>
      usdtIndex === 0 ? [usdt, dai] : [dai, usdt];
    const supply = await addLiquidity(pool, side(1_000_000n * E6, 1_000_000n * E18));
    const lp = keys.accounts[1]!.connect(chain.provider);
    // 1% of the pool in proportion: 1% of the shares, less the rounding.
    const balanced = await addLiquidity(pool, side(10_000n * E6, 10_000n * E18), lp);
    expect(balanced).toBeLessThanOrEqual(supply / 100n);
    expect(balanced).toBeGreaterThan(supply / 100n - 10n);
    // The same 20,000 USD in USDT alone pays the imbalance fee (half the swap fee on what it would swap).
    const oneSided = await addLiquidity(pool, side(20_000n * E6, 0n), lp);
    expect(oneSided).toBeLessThan(balanced);
    expect(oneSided).toBeGreaterThan((balanced * 9_990n) / 10_000n);

    const held = (await pool.getFunction('sharesOf')(lp.address)) as bigint;
    expect(held).toBe(balanced + oneSided);
    const before = await mathState(pool);
    const total = (await pool.getFunction('totalSupply')()) as bigint;
    const lpPool = pool.connect(lp) as Contract;
    await mined(lpPool.getFunction('removeLiquidity')(held, [0n, 0n], { gasLimit: GAS_LIMIT }));
    const after = await mathState(pool);
    expect(before.balance0 - after.balance0).toBe((before.balance0 * held) / total);
    expect(before.balance1 - after.balance1).toBe((before.balance1 * held) / total);
    expect(await pool.getFunction('sharesOf')(lp.address)).toBe(0n);
    expect(await revertName(lpPool.getFunction('removeLiquidity').staticCall(1n, [0n, 0n]), pool)).toBe(
      'InsufficientShares',
    );
  });
});

describe('a 100,000 USDC -> USDT trade on a 10M-a-side pool (A = 2000, fee 0.04%)', () => {
  it('loses a few basis points, well under 0.35% before our 15 bps protocol fee', async () => {
    const pool = await createPool('USDC', 'USDT', AMP, FEE);
    await addLiquidity(pool, [10_000_000n * E6, 10_000_000n * E6]);
    const usdcIndex = (await pool.getFunction('coins')(0)) === (await tokens.USDC!.getAddress()) ? 0 : 1;
    const dx = 100_000n * E6;
    const expected = stableSwapAmountOut(await mathState(pool), usdcIndex === 0, dx);
    const out = await exchange(pool, usdcIndex, dx);
    expect(out).toBe(expected);
    const lossBps = Number(((dx - out) * 1_000_000n) / dx) / 100;
    // The 4 bps fee plus a fraction of a basis point of slippage at A = 2000.
    expect(lossBps).toBeGreaterThanOrEqual(4);
    expect(lossBps).toBeLessThan(5);
    expect(lossBps).toBeLessThan(35);
  });
});
