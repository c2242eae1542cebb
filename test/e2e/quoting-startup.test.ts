import { ChainClients } from '../../shared/chain/chain-clients';
import { ChainRegistry } from '../../shared/chain/chain-registry';
import type { ChainConfig } from '../../shared/config/config-schema';
import { createLogger } from '../../shared/log/create-logger';
import { startQuoting, type QuotingService } from '../../shared/routing/quoting-service';
import { startContractsWorld, type ContractsWorld } from './contracts/contracts-fixture';
import { startRpcProxy, type RpcProxy } from '../helpers/rpc-proxy';

/** A chain whose RPC is down when the api starts becomes quotable once the RPC is back, without a restart. */
describe('quoting start-up through an RPC outage', () => {
  let ctx: ContractsWorld;
  let proxy: RpcProxy;
  let clients: ChainClients;
  let quoting: QuotingService;

  beforeAll(async () => {
    ctx = await startContractsWorld(1);
    proxy = await startRpcProxy(ctx.chain.rpcUrl, { failEvery: 1 });
    const chain: ChainConfig = {
      chainId: 1,
      name: 'Ethereum',
      rpcUrls: [proxy.url],
      nativeSymbol: 'ETH',
      nativeDecimals: 18,
      wrappedNative: ctx.world.contracts.weth,
      crossChainSource: true,
      contracts: {
        multicall: ctx.world.contracts.multicall,
        uniswapV2Factory: ctx.world.contracts.uniswapV2Factory,
        uniswapV3Factory: ctx.world.contracts.uniswapV3Factory,
        swapRouter: ctx.world.contracts.swapRouter,
        spender: ctx.world.contracts.spender,
        orderExecutor: ctx.world.contracts.orderExecutor,
      },
    };
    clients = new ChainClients(new ChainRegistry([chain]), { timeoutMs: 30_000, retries: 0 });
    quoting = startQuoting({
      chains: [chain],
      clients,
      tokens: { tokensOf: () => ctx.world.tokens },
      log: createLogger('silent', 'test'),
      pollMs: 200,
    });
  });
  afterAll(async () => {
    await quoting?.stop();
    clients?.close();
    await proxy?.close();
    await ctx?.stop();
  });

  it('retries pool discovery until the RPC answers, then loads the pools', async () => {
    // Discovery keeps calling while every call fails, and nothing is cached meanwhile (no fixed wait: the failed
    // calls are counted).
    const outage = Date.now() + 20_000;
    while (proxy.failed() < 3 && Date.now() < outage) await new Promise((r) => setTimeout(r, 50));
    expect(proxy.failed()).toBeGreaterThanOrEqual(3);
    expect(quoting.cache.get(1)).toBeUndefined();

    proxy.setFailure({ failEvery: 0 });
    const deadline = Date.now() + 50_000;
    while (!quoting.cache.get(1) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 250));
    const cached = quoting.cache.get(1);
    expect(cached).toBeDefined();
    const kinds = new Set(cached!.pools.map((p) => p.kind));
    expect(kinds).toEqual(new Set(['v2', 'v3']));
  });
});
