import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { parseUnits } from 'ethers';
import { buildApi } from '../api/build-api';
import { loadDevnetConfig } from '../devnet/devnet-config';
import { startDevnet } from '../devnet/start-devnet';
import { loadConfig } from '../shared/config/load-config';
import { createLogger } from '../shared/log/create-logger';
import type { Credentials } from '../shared/signing/request-signature';
import { createAccount } from '../test/factories/accounts';
import { limitOrderBody } from '../test/factories/limit-orders';
import { referencePrice } from '../test/factories/reference-prices';
import { ApiClient } from '../test/helpers/api-client';
import { benchMysqlDatabase } from './bench-database';
import { percentile } from './quote-bench/latency';

/** Settings of every benchmark api: limits out of the way, silent logs, ephemeral ports. */
const BENCH_ENV = {
  PORT: '0',
  ADMIN_PORT: '0',
  LOG_LEVEL: 'silent',
  RATE_LIMIT_PER_SECOND: '1000000',
  RATE_LIMIT_BURST: '1000000',
};

/**
 * Our api for a benchmark server process: a fresh store (SQLite in a temp folder named `prefix`, or a fresh MySQL
 * database), limits out of the way, and the WETH/USDC reference price limit orders need. Resolves with its base URL.
 */
export async function startBenchApi(
  store: string,
  mysqlUrl: string,
  prefix: string,
  env: Record<string, string> = {},
): Promise<string> {
  const config = loadConfig({
    ...process.env,
    DATA_DIR: mkdtempSync(path.join(tmpdir(), `${prefix.replace(/_/g, '-')}-`)),
    DATABASE_URL: store === 'mysql' ? await benchMysqlDatabase(mysqlUrl, prefix) : '',
    ...BENCH_ENV,
    ...env,
  });
  const api = await buildApi(config);
  const { baseUrl } = await api.listen();
  await api.store.referencePrices.upsert([referencePrice()]);
  return baseUrl;
}

/** A signed POST /limit-order of `limitOrderBody()`; resolves with the new order's id. */
export async function createBenchOrder(baseUrl: string, credentials: Credentials): Promise<string> {
  const res = await new ApiClient(baseUrl, credentials).post<{ id: string }>(
    '/limit-order',
    limitOrderBody(),
  );
  if (res.status !== 200 || !res.body.data) {
    throw new Error(`could not create a benchmark order: ${res.status} ${res.text}`);
  }
  return res.body.data.id;
}

/**
 * The engine alone on the benchmark's quote, timed in the api's process: the floor of a quote over HTTP. Each
 * timed call asks a new amount (1 WETH and i wei), so it is the engine's whole search, never its per-block answer
 * to a request it has already evaluated.
 */
export interface EngineTiming {
  p50Ms: number;
  p99Ms: number;
}

const QUOTE_WARM_TIMEOUT_MS = 60_000;
const ENGINE_WARMUP = 300;
const ENGINE_COUNT = 2_000;

/**
 * A devnet chain 1 (anvil, its fixture world) and our api on it over SQLite, for the warm-quote scenario: resolves
 * once a signed POST /quotes of 1 WETH for USDC answers 200, with the engine alone timed on the same quote. The
 * devnet stops on SIGTERM.
 */
export async function startBenchQuoteApi(dataDir: string): Promise<{
  baseUrl: string;
  credentials: Credentials;
  quoteBody: unknown;
  engine: EngineTiming;
}> {
  const log = createLogger('error', 'bench-quote');
  const devnet = await startDevnet(
    loadDevnetConfig({ DATA_DIR: dataDir, DEVNET_CHAINS: '1', DEVNET_PORTS: '0' }),
    log,
  );
  process.once('SIGTERM', () => {
    void devnet.stop().finally(() => process.exit(0));
  });
  const config = loadConfig(
    { ...process.env, DATA_DIR: dataDir, DATABASE_URL: '', ...BENCH_ENV },
    {
      chains: devnet.chains,
    },
  );
  const api = await buildApi(config);
  const { baseUrl } = await api.listen();
  const credentials = await createAccount(baseUrl, { name: 'bench-quotes' });
  const chain = devnet.manifest.chains[0]!;
  const token = (symbol: string) => {
    const found = chain.tokens.find((t) => t.symbol === symbol);
    if (!found) throw new Error(`devnet chain lists no ${symbol}`);
    return found;
  };
  const weth = token('WETH');
  const usdc = token('USDC');
  const quoteBody = {
    mode: 'single-chain',
    params: {
      chainId: chain.chainId,
      inTokenAddress: weth.address,
      outTokenAddress: usdc.address,
      amount: '1',
      gasPrice: '30',
      slippage: '0.5',
    },
  };
  const client = new ApiClient(baseUrl, credentials);
  const deadline = Date.now() + QUOTE_WARM_TIMEOUT_MS;
  for (;;) {
    const res = await client.post('/quotes', quoteBody);
    if (res.status === 200) break;
    if (res.body.error?.code !== 'NO_ROUTE' || Date.now() > deadline) {
      throw new Error(`POST /quotes answered ${res.status} ${res.text}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  const input = {
    chainId: chain.chainId,
    tokenIn: weth.address,
    tokenOut: usdc.address,
    amountIn: parseUnits('1', weth.decimals),
    gasPriceWei: 30n * 10n ** 9n,
  };
  for (let i = 0; i < ENGINE_WARMUP; i++)
    api.quoting.engine.quote({ ...input, amountIn: input.amountIn + BigInt(i + 1) });
  const times: number[] = [];
  for (let i = 0; i < ENGINE_COUNT; i++) {
    const fresh = { ...input, amountIn: input.amountIn + BigInt(ENGINE_WARMUP + i + 1) };
    const t0 = process.hrtime.bigint();
    api.quoting.engine.quote(fresh);
    times.push(Number(process.hrtime.bigint() - t0) / 1e6);
  }
  times.sort((a, b) => a - b);
  return {
    baseUrl,
    credentials,
    quoteBody,
    engine: { p50Ms: percentile(times, 50), p99Ms: percentile(times, 99) },
  };
}
