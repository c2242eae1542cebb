import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { getAddress } from 'ethers';
import { loadDevnetConfig } from '../../devnet/devnet-config';
import type { ManifestChain } from '../../devnet/manifest';
import { startDevnet, type RunningDevnet } from '../../devnet/start-devnet';
import { createLogger } from '../../shared/log/create-logger';
import { newAccountClient, type ApiClient } from '../helpers/api-client';
import { startApi, type RunningApi } from '../helpers/api-harness';
import { waitUntilQuotesAvailable } from '../helpers/devnet-api';
import { startRpcProxy, type RpcProxy } from '../helpers/rpc-proxy';
import { createStoreTarget, type StoreTarget } from '../helpers/store-targets';

/**
 * No silent staleness: with the chain's RPC cut, quotes, swaps and new limit orders are refused once the pool
 * state is older than STALE_AFTER_SECONDS, /readyz says which chain, /healthz stays liveness; all recover with
 * the node.
 */

jest.setTimeout(180_000);

const CHAIN_ID = 1;
const STALE_AFTER_SECONDS = 3;
const ACCOUNT = '0x90F79bf6EB2c4f870365E785982E1f101E93b906';

interface Readyz {
  status: string;
  store: string;
  ready: boolean;
  chains: { chainId: number; status: string; blockNumber: number | null; blocksBehind: number }[];
}

async function readyz(adminUrl: string): Promise<{ status: number; body: Readyz }> {
  const res = await fetch(`${adminUrl}/readyz`);
  return { status: res.status, body: (await res.json()) as Readyz };
}

async function until(check: () => Promise<boolean>, timeoutMs: number, what: string): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

describe('stale market data', () => {
  let dataDir: string;
  let devnet: RunningDevnet;
  let manifest: ManifestChain;
  let proxy: RpcProxy;
  let target: StoreTarget;
  let running: RunningApi;
  let client: ApiClient;
  let weth: string;
  let usdc: string;

  const quoteBody = () => ({
    mode: 'single-chain',
    params: {
      chainId: CHAIN_ID,
      inTokenAddress: weth,
      outTokenAddress: usdc,
      amount: '1',
      gasPrice: '30',
      slippage: '0.5',
    },
  });
  const swapBody = () => ({
    mode: 'single-chain',
    params: { ...quoteBody().params, account: ACCOUNT, aggregatorId: 'tas-smart' },
  });
  const orderBody = () => ({
    accountTo: ACCOUNT,
    chainId: CHAIN_ID,
    inTokenAddress: weth,
    outTokenAddress: usdc,
    tokenASymbol: 'WETH',
    tokenBSymbol: 'USDC',
    amount: '1',
    priceTrigger: '5000',
    price: '5000',
    expired: String(Date.now() + 86_400_000),
    gasPrice: '30',
    slippage: '1',
    signature: `0x${'ab'.repeat(65)}`,
  });

  beforeAll(async () => {
    dataDir = mkdtempSync(path.join(tmpdir(), 'tas-stale-'));
    devnet = await startDevnet(
      loadDevnetConfig({ DATA_DIR: dataDir, DEVNET_CHAINS: String(CHAIN_ID), DEVNET_PORTS: '0' }),
      createLogger('silent', 'test'),
    );
    manifest = devnet.manifest.chains[0]!;
    const token = (symbol: string) => getAddress(manifest.tokens.find((t) => t.symbol === symbol)!.address);
    weth = token('WETH');
    usdc = token('USDC');
    proxy = await startRpcProxy(manifest.rpcUrl);
    target = await createStoreTarget('sqlite');
    running = await startApi(
      target,
      { STALE_AFTER_SECONDS: String(STALE_AFTER_SECONDS) },
      { chains: devnet.chains.map((c) => ({ ...c, rpcUrls: [proxy.url] })) },
    );
    // What the keeper publishes; this suite runs the api alone.
    await running.store.referencePrices.upsert([
      {
        chainId: CHAIN_ID,
        baseSymbol: 'WETH',
        quoteSymbol: 'USDC',
        price: '3000',
        blockNumber: 1,
        updatedAt: Date.now(),
      },
    ]);
    client = await newAccountClient(running.baseUrl);
    await waitUntilQuotesAvailable(() => client.post('/quotes', quoteBody()));
  });

  afterAll(async () => {
    await running?.close();
    await target?.cleanup();
    await proxy?.close();
    await devnet?.stop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('serves while fresh, refuses with the temporary errors while the RPC is down, and recovers', async () => {
    expect((await client.post('/limit-order', orderBody())).status).toBe(200);
    const fresh = await readyz(running.adminUrl);
    expect(fresh.status).toBe(200);
    expect(fresh.body).toMatchObject({ status: 'ready', store: 'ok', ready: true });
    expect(fresh.body.chains).toEqual([expect.objectContaining({ chainId: CHAIN_ID, status: 'fresh' })]);

    proxy.setFailure({ failEvery: 1 });
    await until(
      async () => (await client.post('/quotes', quoteBody())).status !== 200,
      (STALE_AFTER_SECONDS + 10) * 1000,
      'quotes to be refused',
    );

    const quote = await client.post('/quotes', quoteBody());
    expect(quote.status).toBe(500);
    expect(quote.body.success).toBe(false);
    expect(quote.body.error?.code).toBe('QUOTE_ERROR');
    expect(quote.body.error?.message).toBe(
      `Market data of chain ${CHAIN_ID} is out of date; retry with backoff`,
    );
    expect(quote.body.error?.details).toEqual([
      { message: expect.stringMatching(/^Pool state was last confirmed at the chain head \d+ s ago$/) },
    ]);

    const swap = await client.post('/swap', swapBody());
    expect(swap.status).toBe(500);
    expect(swap.body.error?.code).toBe('SWAP_ERROR');
    expect(swap.body.error?.message).toBe(
      `Market data of chain ${CHAIN_ID} is out of date; retry with backoff`,
    );

    const order = await client.post('/limit-order', orderBody());
    expect(order.status).toBe(400);
    expect(order.body.error).toEqual({
      code: 'VALIDATION_ERROR',
      message: 'Not exist reference price for this pair WETH/USDC',
      details: [],
    });

    const stale = await readyz(running.adminUrl);
    expect(stale.status).toBe(503);
    expect(stale.body).toMatchObject({ status: 'not ready', store: 'ok', ready: false });
    expect(stale.body.chains).toEqual([expect.objectContaining({ chainId: CHAIN_ID, status: 'stale' })]);
    // Liveness is not readiness: the process and its store are fine.
    expect((await fetch(`${running.adminUrl}/healthz`)).status).toBe(200);
    const metrics = await (await fetch(`${running.adminUrl}/metrics`)).text();
    expect(metrics).toMatch(new RegExp(`^tas_api_chain_state_stale\\{chain_id="${CHAIN_ID}"\\} 1$`, 'm'));

    proxy.setFailure({ failEvery: 0 });
    await until(
      async () => (await client.post('/quotes', quoteBody())).status === 200,
      15_000,
      'quotes to recover',
    );
    expect((await client.post('/limit-order', orderBody())).status).toBe(200);
    expect((await readyz(running.adminUrl)).status).toBe(200);
    const after = await (await fetch(`${running.adminUrl}/metrics`)).text();
    expect(after).toMatch(new RegExp(`^tas_api_chain_state_stale\\{chain_id="${CHAIN_ID}"\\} 0$`, 'm'));
  });
});
