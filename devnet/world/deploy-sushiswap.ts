import { loadSushiswapArtifact } from '../../contracts-abi/external/sushiswap-artifacts';
import { ERC20_ABI, SUSHISWAP_FACTORY_ABI, V2_PAIR_MINT_ABI } from './abis';
import type { TxQueue } from './tx-queue';
import { sushiswapPairAddress } from './venue-pool-address';
import { poolAmounts, type WorldSpec } from './world-spec';

/** What seeding a venue's pools needs of the world. */
export interface VenueSeedContext {
  spec: WorldSpec;
  /** Token address by symbol. */
  addressOf: (symbol: string) => string;
}

// createPair deploys the pair (about 2.3M gas, as Uniswap's); mint writes reserves, balances and the LP supply.
const CREATE_PAIR_GAS = 3_500_000n;
const TRANSFER_GAS = 80_000n;
const MINT_GAS = 300_000n;

/** Queues SushiSwap's V2 factory (our solc 0.6.12 build of @sushiswap/core); the deployer sets its fees. */
export function queueSushiswapFactory(queue: TxQueue): string {
  return queue.deploy('SushiSwap UniswapV2Factory', loadSushiswapArtifact('UniswapV2Factory'), [
    queue.address,
  ]);
}

/**
 * Creates every SushiSwap pair of the spec and seeds it at the reference price: both amounts transferred into the
 * pair, then minted to the deployer (the first mint sets the price). No SushiSwap router is deployed: its library
 * hard-codes mainnet's init-code hash. Returns the pairs' addresses in spec order.
 */
export function queueSushiswapPairs(queue: TxQueue, ctx: VenueSeedContext, factory: string): string[] {
  return ctx.spec.sushiPools.map((pool) => {
    const [base, quote] = [ctx.addressOf(pool.base), ctx.addressOf(pool.quote)];
    const amounts = poolAmounts(ctx.spec, pool);
    const pair = sushiswapPairAddress(factory, base, quote);
    const label = `SushiSwap ${pool.base}/${pool.quote}`;
    queue.call(
      `${label} createPair`,
      factory,
      SUSHISWAP_FACTORY_ABI,
      'createPair',
      [base, quote],
      CREATE_PAIR_GAS,
    );
    queue.call(`${label} ${pool.base} in`, base, ERC20_ABI, 'transfer', [pair, amounts.base], TRANSFER_GAS);
    queue.call(
      `${label} ${pool.quote} in`,
      quote,
      ERC20_ABI,
      'transfer',
      [pair, amounts.quote],
      TRANSFER_GAS,
    );
    queue.call(`${label} mint`, pair, V2_PAIR_MINT_ABI, 'mint', [queue.address], MINT_GAS);
    return pair;
  });
}
