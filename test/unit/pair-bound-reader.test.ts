import { AbiCoder, Wallet } from 'ethers';
import { orderExecutorInterface } from '../../shared/chain/contract-interfaces';
import { PairBoundReader } from '../../keeper/plan/pair-bound-reader';

const EXECUTOR = Wallet.createRandom().address;
const WETH = Wallet.createRandom().address;
const USDC = Wallet.createRandom().address;
const DAI = Wallet.createRandom().address;
const word = (value: bigint) => AbiCoder.defaultAbiCoder().encode(['uint256'], [value]);

/** A chain whose OrderExecutor answers priceBound from `bounds` (by "in>out", lowercase) and counts every call. */
function fakeChain(bounds: Map<string, bigint | 'revert' | 'down'>) {
  const iface = orderExecutorInterface();
  const calls: string[] = [];
  const client = {
    call: ({ data }: { to: string; data: string }): Promise<string> => {
      const parsed = iface.parseTransaction({ data });
      calls.push(parsed!.name);
      if (parsed!.name === 'maxDeviationBps') return Promise.resolve(word(200n));
      const key = `${String(parsed!.args[0]).toLowerCase()}>${String(parsed!.args[1]).toLowerCase()}`;
      const answer = bounds.get(key) ?? 0n;
      if (answer === 'revert')
        return Promise.reject(Object.assign(new Error('reverted'), { code: 'CALL_EXCEPTION' }));
      if (answer === 'down')
        return Promise.reject(Object.assign(new Error('connect ECONNREFUSED'), { code: 'NETWORK_ERROR' }));
      return Promise.resolve(word(answer));
    },
  };
  return { client, calls };
}

describe('PairBoundReader: one price-bound read per pair and head', () => {
  const key = (a: string, b: string) => `${a.toLowerCase()}>${b.toLowerCase()}`;

  it('shares one read among the batches of a head (asked at once or one after another) and reads again at the next', async () => {
    const bounds = new Map<string, bigint | 'revert' | 'down'>([[key(WETH, USDC), 7n << 128n]]);
    const { client, calls } = fakeChain(bounds);
    const reader = new PairBoundReader(client, EXECUTOR);
    const [a, b] = await Promise.all([
      reader.read(WETH, USDC, 10),
      reader.read(WETH.toLowerCase(), USDC, 10),
    ]);
    expect(a).toEqual({ priceX128: 7n << 128n, deviationBps: 200n });
    expect(b).toEqual(a);
    expect(await reader.read(WETH, USDC, 10)).toEqual(a);
    expect(calls.filter((c) => c === 'priceBound')).toHaveLength(1);
    // The next head reads the bound of its block; the deviation is the deployment's, read once.
    bounds.set(key(WETH, USDC), 8n << 128n);
    expect(await reader.read(WETH, USDC, 11)).toEqual({ priceX128: 8n << 128n, deviationBps: 200n });
    expect(calls).toEqual(['maxDeviationBps', 'priceBound', 'priceBound']);
  });

  it('keeps pairs apart, and "no bound" (zero or a reverting view) for the head like any answer', async () => {
    const bounds = new Map<string, bigint | 'revert' | 'down'>([
      [key(WETH, USDC), 7n << 128n],
      [key(USDC, WETH), 0n],
      [key(DAI, USDC), 'revert'],
    ]);
    const { client, calls } = fakeChain(bounds);
    const reader = new PairBoundReader(client, EXECUTOR);
    expect(await reader.read(WETH, USDC, 5)).toEqual({ priceX128: 7n << 128n, deviationBps: 200n });
    expect(await reader.read(USDC, WETH, 5)).toBeUndefined();
    expect(await reader.read(DAI, USDC, 5)).toBeUndefined();
    expect(await reader.read(DAI, USDC, 5)).toBeUndefined();
    expect(calls.filter((c) => c === 'priceBound')).toHaveLength(3);
  });

  it('does not keep a read that failed: the next batch of the head asks again', async () => {
    const bounds = new Map<string, bigint | 'revert' | 'down'>([[key(WETH, USDC), 'down']]);
    const { client, calls } = fakeChain(bounds);
    const reader = new PairBoundReader(client, EXECUTOR);
    await expect(reader.read(WETH, USDC, 3)).rejects.toThrow('ECONNREFUSED');
    bounds.set(key(WETH, USDC), 9n << 128n);
    expect(await reader.read(WETH, USDC, 3)).toEqual({ priceX128: 9n << 128n, deviationBps: 200n });
    expect(calls.filter((c) => c === 'priceBound')).toHaveLength(2);
  });
});
