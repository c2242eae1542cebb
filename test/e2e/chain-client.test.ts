import { Writable } from 'node:stream';
import { Contract, Interface, dataSlice, getAddress, id, isCallException, toQuantity } from 'ethers';
import { Registry } from 'prom-client';
import { createLogger } from '../../shared/log/create-logger';
import { ChainClient, type ChainClientOptions } from '../../shared/chain/chain-client';
import { ChainClients } from '../../shared/chain/chain-clients';
import { ChainRegistry } from '../../shared/chain/chain-registry';
import { multicall } from '../../shared/chain/multicall';
import { RpcUnavailableError } from '../../shared/chain/rpc-errors';
import { RpcMetrics } from '../../shared/chain/rpc-metrics';
import type { ChainConfig } from '../../shared/config/config-schema';
import { v2PairAddress } from '../../devnet/world/uniswap-pool-address';
import { WETH_ABI } from '../../devnet/world/abis';
import { startContractsWorld, mined, type ContractsWorld } from './contracts/contracts-fixture';
import { startRpcProxy, type RpcProxy } from '../helpers/rpc-proxy';

/** ChainClient and multicall against a ganache chain with the fixture world, directly and through a faulty proxy. */

const CHAIN_ID = 1;
/** Nothing listens on port 1 of the loopback interface: connections are refused at once. */
const DEAD_URL = 'http://127.0.0.1:1';
const ERC20 = new Interface(['function balanceOf(address) view returns (uint256)']);

let ctx: ContractsWorld;
const clients: ChainClient[] = [];
const proxies: RpcProxy[] = [];

function chainConfig(rpcUrls: string[]): Pick<ChainConfig, 'chainId' | 'name' | 'rpcUrls'> {
  return { chainId: CHAIN_ID, name: 'devnet', rpcUrls };
}

function newClient(rpcUrls: string[], opts: ChainClientOptions = {}): ChainClient {
  const client = new ChainClient(chainConfig(rpcUrls), opts);
  clients.push(client);
  return client;
}

async function proxy(failEvery: number, failure: '503' | 'hang'): Promise<RpcProxy> {
  const p = await startRpcProxy(ctx.chain.rpcUrl, { failEvery, failure });
  proxies.push(p);
  return p;
}

function metrics(): { registry: Registry; rpc: RpcMetrics } {
  const registry = new Registry();
  return { registry, rpc: new RpcMetrics(registry, 'tas_api_') };
}

async function metricValue(
  registry: Registry,
  name: string,
  labels: Record<string, string>,
): Promise<number> {
  const metric = registry.getSingleMetric(name);
  if (!metric) throw new Error(`no metric ${name}`);
  const { values } = await metric.get();
  const match = values.filter((v) => Object.entries(labels).every(([k, val]) => v.labels[k] === val));
  return match.reduce((sum, v) => sum + v.value, 0);
}

const requests = (registry: Registry, method: string, outcome: string) =>
  metricValue(registry, 'tas_api_rpc_requests_total', { chain_id: String(CHAIN_ID), method, outcome });
const failovers = (registry: Registry) =>
  metricValue(registry, 'tas_api_rpc_failovers_total', { chain_id: String(CHAIN_ID) });

beforeAll(async () => {
  ctx = await startContractsWorld(CHAIN_ID);
}, 120_000);

afterEach(async () => {
  for (const client of clients.splice(0)) client.close();
  await Promise.all(proxies.splice(0).map((p) => p.close()));
});

afterAll(async () => {
  await ctx?.stop();
});

describe('reads on a devnet chain', () => {
  it('answers blocks, transactions, receipts, calls, gas estimates and fees like the node', async () => {
    const client = newClient([ctx.chain.rpcUrl]);
    const [from, to] = ctx.accounts;
    const receipt = await mined(from!.sendTransaction({ to: to!.address, value: 12345n }));

    expect(await client.blockNumber()).toBe(await ctx.provider.getBlockNumber());
    const block = await client.getBlock(receipt.blockNumber);
    expect(block?.hash).toBe(receipt.blockHash);
    expect((await client.getBlock(receipt.blockHash))?.number).toBe(receipt.blockNumber);

    const tx = await client.getTransaction(receipt.hash);
    expect(tx?.from).toBe(from!.address);
    expect(tx?.value).toBe(12345n);
    const fetched = await client.getTransactionReceipt(receipt.hash);
    expect(fetched?.status).toBe(1);
    expect(fetched?.gasUsed).toBe(receipt.gasUsed);
    const unknown = id('no such transaction');
    expect(await client.getTransaction(unknown)).toBeNull();
    expect(await client.getTransactionReceipt(unknown)).toBeNull();

    const weth = ctx.world.contracts.weth;
    const data = ERC20.encodeFunctionData('balanceOf', [from!.address]);
    const expected = (await new Contract(weth, WETH_ABI, ctx.provider).getFunction('balanceOf')(
      from!.address,
    )) as bigint;
    expect(expected).toBeGreaterThan(0n);
    expect(BigInt(await client.call({ to: weth, data }))).toBe(expected);
    // At the block before the transfer the native balance differs from now; a historical read sees that.
    const before = await client.send('eth_getBalance', [to!.address, toQuantity(receipt.blockNumber - 1)]);
    expect(BigInt(before as string) + 12345n).toBe(await ctx.provider.getBalance(to!.address));

    expect(await client.estimateGas({ from: from!.address, to: to!.address, data: '0x', value: 1n })).toBe(
      21000n,
    );
    const fees = await client.feeData();
    expect(fees.gasPrice).toBeGreaterThan(0n);
    expect(fees.baseFeePerGas).toBe((await ctx.provider.getBlock('latest'))!.baseFeePerGas);
    expect(fees.maxPriorityFeePerGas).not.toBeNull();
    expect(fees.maxFeePerGas).toBe(fees.baseFeePerGas! * 2n + fees.maxPriorityFeePerGas!);
  });

  it('ChainClients holds one client per enabled chain', async () => {
    const registry = new ChainRegistry([
      {
        ...chainConfig([ctx.chain.rpcUrl]),
        nativeSymbol: 'ETH',
        nativeDecimals: 18,
        wrappedNative: ctx.world.contracts.weth,
        crossChainSource: true,
      },
    ]);
    const all = new ChainClients(registry);
    try {
      expect(all.ids()).toEqual([CHAIN_ID]);
      expect(await all.get(CHAIN_ID).blockNumber()).toBe(await ctx.provider.getBlockNumber());
      expect(() => all.get(137)).toThrow('chain 137 is not enabled');
    } finally {
      all.close();
    }
  });
});

describe('failover', () => {
  it('moves past a dead first URL, counts the failover once and stays on the healthy URL', async () => {
    const { registry, rpc } = metrics();
    const client = newClient([DEAD_URL, ctx.chain.rpcUrl], { metrics: rpc, backoffMs: 1 });

    expect(await client.blockNumber()).toBe(await ctx.provider.getBlockNumber());
    expect(await failovers(registry)).toBe(1);
    expect(await requests(registry, 'eth_blockNumber', 'error')).toBe(1);
    expect(await requests(registry, 'eth_blockNumber', 'ok')).toBe(1);

    // Later calls start at the URL that answered: no new failure, no new failover.
    for (let i = 0; i < 5; i++) await client.blockNumber();
    expect(await failovers(registry)).toBe(1);
    expect(await requests(registry, 'eth_blockNumber', 'error')).toBe(1);
    expect(await requests(registry, 'eth_blockNumber', 'ok')).toBe(6);
    const histogram = await registry.getSingleMetric('tas_api_rpc_duration_seconds')!.get();
    const count = histogram.values.find(
      (v) =>
        (v as { metricName?: string }).metricName === 'tas_api_rpc_duration_seconds_count' &&
        v.labels.method === 'eth_blockNumber',
    );
    expect(count?.value).toBe(7);
  });
});

describe('retries', () => {
  it('retries 503 answers: every call succeeds and each failure is one counted retry', async () => {
    const p = await proxy(3, '503');
    const { registry, rpc } = metrics();
    const client = newClient([p.url], { metrics: rpc, retries: 2, backoffMs: 1 });
    const expected = await ctx.provider.getBlockNumber();

    for (let i = 0; i < 30; i++) expect(await client.blockNumber()).toBe(expected);

    // Every third request fails and is retried once: 30 answers take 44 requests (44 - 44/3 = 30).
    expect(p.received()).toBe(44);
    expect(p.failed()).toBe(14);
    expect(await requests(registry, 'eth_blockNumber', 'ok')).toBe(30);
    expect(await requests(registry, 'eth_blockNumber', 'error')).toBe(14);
    expect(await requests(registry, 'eth_blockNumber', 'timeout')).toBe(0);
    expect(await failovers(registry)).toBe(0); // a single URL has nowhere to fail over to
  });

  it('gives up on a hanging request at the timeout and retries it', async () => {
    const p = await proxy(4, 'hang');
    const { registry, rpc } = metrics();
    const timeoutMs = 300;
    const client = newClient([p.url], { metrics: rpc, timeoutMs, retries: 2, backoffMs: 1 });
    const expected = await ctx.provider.getBlockNumber();

    const started = Date.now();
    for (let i = 0; i < 9; i++) expect(await client.blockNumber()).toBe(expected);
    const elapsed = Date.now() - started;

    // Requests 4 and 8 hang: 9 answers take 11 requests, 2 of them timed out.
    expect(p.received()).toBe(11);
    expect(p.failed()).toBe(2);
    expect(await requests(registry, 'eth_blockNumber', 'timeout')).toBe(2);
    expect(await requests(registry, 'eth_blockNumber', 'ok')).toBe(9);
    expect(await requests(registry, 'eth_blockNumber', 'error')).toBe(0);
    expect(elapsed).toBeGreaterThanOrEqual(2 * timeoutMs);
    expect(elapsed).toBeLessThan(2 * timeoutMs + 3000);
  });

  it('never retries a revert or invalid params', async () => {
    const p = await proxy(0, '503');
    const { registry, rpc } = metrics();
    const client = newClient([p.url, ctx.chain.rpcUrl], { metrics: rpc, retries: 2, backoffMs: 1 });
    const weth = new Interface(WETH_ABI);
    const stranger = getAddress(dataSlice(id('stranger'), 12));

    // WETH9.withdraw from an account without WETH fails its require.
    const err = await client
      .call({ to: ctx.world.contracts.weth, from: stranger, data: weth.encodeFunctionData('withdraw', [1n]) })
      .catch((e: unknown) => e);
    expect(isCallException(err)).toBe(true);
    expect(p.received()).toBe(1);

    await expect(client.send('eth_getBalance', ['0xzz', 'latest'])).rejects.toThrow();
    expect(p.received()).toBe(2);
    expect(p.bodies().map((b) => b.method)).toEqual(['eth_call', 'eth_getBalance']);
    expect(await failovers(registry)).toBe(0);
    expect(await requests(registry, 'eth_call', 'error')).toBe(1);
  });
});

describe('all URLs down', () => {
  it('throws RpcUnavailableError without credentials in its message, cause or logs', async () => {
    const lines: string[] = [];
    const sink = new Writable({
      write(chunk: Buffer, _enc, done) {
        lines.push(chunk.toString('utf8'));
        done();
      },
    });
    const log = createLogger('warn', 'test', sink);
    const { registry, rpc } = metrics();
    const secretUrl = 'http://user:secret@127.0.0.1:1/?key=abc';
    const client = newClient([secretUrl, 'http://127.0.0.1:2/v3/0123456789abcdef0123456789abcdef'], {
      metrics: rpc,
      log,
      retries: 3,
      backoffMs: 1,
    });

    const err = await client.blockNumber().catch((e: unknown) => e);
    expect(err).toBeInstanceOf(RpcUnavailableError);
    const unavailable = err as RpcUnavailableError;
    expect(unavailable.chainId).toBe(CHAIN_ID);
    expect(unavailable.method).toBe('eth_blockNumber');
    expect(unavailable.attempts).toBe(4);
    expect(unavailable.message).toContain('ECONNREFUSED');
    expect(await requests(registry, 'eth_blockNumber', 'error')).toBe(4);
    expect(await failovers(registry)).toBe(3);

    expect(lines.length).toBe(4);
    const everything = [unavailable.message, String(unavailable.cause), unavailable.stack ?? '', ...lines];
    for (const text of everything) {
      for (const secret of ['secret', 'abc', 'user:', '0123456789abcdef']) expect(text).not.toContain(secret);
    }
    expect(lines.join('')).toContain('http://127.0.0.1:1');
  });
});

describe('multicall', () => {
  const FIRST_ADDRESSES = (): string[] => {
    const { contracts, tokens } = ctx.world;
    const pairs = tokens.flatMap((a, i) =>
      tokens.slice(i + 1).map((b) => v2PairAddress(contracts.uniswapV2Factory, a.address, b.address)),
    );
    return [
      ...ctx.accounts.map((a) => a.address),
      ctx.deployer.address,
      ...Object.values(contracts),
      ...pairs,
    ];
  };

  function addresses(count: number): string[] {
    const known = FIRST_ADDRESSES();
    const filler = Array.from({ length: count - known.length }, (_, i) =>
      getAddress(dataSlice(id(`holder/${i}`), 12)),
    );
    return [...known, ...filler];
  }

  it('reads balanceOf of two tokens for 500 addresses like direct calls, at one block', async () => {
    const p = await proxy(0, '503');
    // ganache runs the EVM in JavaScript: a chunk of 200 calls takes a while when all chunks arrive together.
    const client = newClient([p.url], { timeoutMs: 60_000 });
    const holders = addresses(500);
    // WETH9 and a TestToken; all seven tokens would take ganache half a minute (about 6 ms per inner call).
    const tokens = ctx.world.tokens.filter((t) => t.symbol === 'WETH' || t.symbol === 'USDC');
    expect(tokens).toHaveLength(2);
    const calls = tokens.flatMap((token) =>
      holders.map((holder) => ({
        target: token.address,
        callData: ERC20.encodeFunctionData('balanceOf', [holder]),
      })),
    );
    // A call that fails inside the batch: an unknown selector on a TestToken (no fallback).
    const failing = 777;
    calls.splice(failing, 0, { target: tokens[1]!.address, callData: '0xdeadbeef' });

    const latest = await ctx.provider.getBlockNumber();
    const { blockNumber, results } = await multicall(client, ctx.world.contracts.multicall, calls);

    expect(blockNumber).toBe(latest);
    expect(results).toHaveLength(calls.length);
    expect(results[failing]!.success).toBe(false);

    const direct = await Promise.all(
      calls.map((c, i) =>
        i === failing ? Promise.resolve('') : ctx.provider.call({ to: c.target, data: c.callData }),
      ),
    );
    let nonZero = 0;
    results.forEach((r, i) => {
      if (i === failing) return;
      expect(r.success).toBe(true);
      expect(r.returnData).toBe(direct[i]);
      if (BigInt(r.returnData) > 0n) nonZero += 1;
    });
    expect(nonZero).toBeGreaterThan(10);

    // Chunks of 200: the first at latest, every other one pinned to the block the first read.
    const multicalls = p.bodies().filter((b) => b.method === 'eth_call');
    expect(multicalls).toHaveLength(Math.ceil(calls.length / 200));
    expect(multicalls[0]!.params[1]).toBe('latest');
    for (const body of multicalls.slice(1)) expect(body.params[1]).toBe(`0x${latest.toString(16)}`);
  });

  it('reads at an older block when asked', async () => {
    const client = newClient([ctx.chain.rpcUrl]);
    const usdc = ctx.world.tokens.find((t) => t.symbol === 'USDC')!.address;
    const [holder, receiver] = ctx.accounts;
    const calls = [holder!, receiver!].map((a) => ({
      target: usdc,
      callData: ERC20.encodeFunctionData('balanceOf', [a.address]),
    }));
    const before = await multicall(client, ctx.world.contracts.multicall, calls);
    await mined(
      (ctx.token('USDC').connect(holder!) as Contract).getFunction('transfer')(receiver!.address, 1_000_000n),
    );

    const now = await multicall(client, ctx.world.contracts.multicall, calls, { chunkSize: 1 });
    const then = await multicall(client, ctx.world.contracts.multicall, calls, {
      chunkSize: 1,
      blockTag: before.blockNumber,
    });
    expect(now.blockNumber).toBe(before.blockNumber + 1);
    expect(BigInt(now.results[0]!.returnData)).toBe(BigInt(before.results[0]!.returnData) - 1_000_000n);
    expect(BigInt(now.results[1]!.returnData)).toBe(BigInt(before.results[1]!.returnData) + 1_000_000n);
    expect(then).toEqual(before);
    expect(await multicall(client, ctx.world.contracts.multicall, [])).toEqual({
      blockNumber: now.blockNumber,
      results: [],
    });
  });
});
