import { Interface } from 'ethers';
import { HOP_KIND_SUSHISWAP_V2, HOP_KIND_V2 } from '../../shared/routing/sources/liquidity-source';
import { sushiSwapV2Source } from '../../shared/routing/sources/sushiswap-v2-source';
import { UniswapV2Source } from '../../shared/routing/sources/uniswap-v2-source';
import { FakeChain, addr } from './venue-source-fake-chain';

const FACTORY = addr(0x5f);
const PAIR = addr(0x5a1);
const [SUSHI, WETH] = [addr(0x1a), addr(0x2b)];
const factoryInterface = new Interface(['function getPair(address, address) view returns (address)']);
const pairInterface = new Interface([
  'function token0() view returns (address)',
  'function getReserves() view returns (uint112 reserve0, uint112 reserve1, uint32 blockTimestampLast)',
]);

function chainWithPair(): FakeChain {
  const chain = new FakeChain();
  chain.on(FACTORY, factoryInterface, 'getPair', () => [PAIR]);
  chain.on(PAIR, pairInterface, 'token0', () => [SUSHI]);
  chain.on(PAIR, pairInterface, 'getReserves', () => [1000n, 2000n, 0n]);
  return chain;
}

describe('SushiSwap V2 source', () => {
  it('is the V2 source with its id, name and hop kind stamped on every pool', async () => {
    const chain = chainWithPair();
    const source = sushiSwapV2Source({
      client: chain.client(),
      factory: FACTORY,
      multicall: FakeChain.MULTICALL,
    });
    expect([source.id, source.name, source.hopKind]).toEqual([
      'sushiswap-v2',
      'SushiSwap V2',
      HOP_KIND_SUSHISWAP_V2,
    ]);
    await source.discover([SUSHI, WETH]);
    await source.refresh(100);
    expect(source.snapshot().pools).toEqual([
      {
        kind: 'v2',
        sourceId: 'sushiswap-v2',
        address: PAIR,
        token0: SUSHI,
        token1: WETH,
        reserve0: 1000n,
        reserve1: 2000n,
        feeBps: 30n,
        hopKind: HOP_KIND_SUSHISWAP_V2,
      },
    ]);
  });

  it('leaves Uniswap V2 pools without a hop kind (the pool state default)', async () => {
    const chain = chainWithPair();
    const source = new UniswapV2Source({
      client: chain.client(),
      id: 'uniswap-v2',
      name: 'Uniswap V2',
      factory: FACTORY,
      multicall: FakeChain.MULTICALL,
    });
    expect(source.hopKind).toBe(HOP_KIND_V2);
    await source.discover([SUSHI, WETH]);
    await source.refresh(100);
    expect(source.snapshot().pools[0]).not.toHaveProperty('hopKind');
  });
});
