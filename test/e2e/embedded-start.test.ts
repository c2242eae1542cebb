import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Contract, JsonRpcProvider, MaxUint256, Wallet } from 'ethers';
import { REPO_ROOT } from '../helpers/api-harness';
import { newAccountClient, type ApiClient } from '../helpers/api-client';

/**
 * `npm start` as a user runs it: one process with the devnet, the api and the keeper. A limit order created
 * through the public API with a trigger below the market is executed on-chain by the embedded keeper, and
 * SIGTERM stops everything cleanly.
 */

jest.setTimeout(240_000);

interface ManifestFile {
  chains: {
    chainId: number;
    rpcUrl: string;
    contracts: { orderExecutor: string };
    tokens: { symbol: string; address: string }[];
    accounts: { address: string; privateKey: string }[];
  }[];
}

interface LimitOrderData {
  id: string;
  status: string;
  txHash: string;
  reasonFail: string[];
}

describe('npm start (embedded mode)', () => {
  let dataDir: string;
  let child: ChildProcess;
  let output = '';
  let exited: Promise<number | null>;

  const waitForOutput = async (pattern: RegExp, timeoutMs: number): Promise<RegExpMatchArray> => {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const match = pattern.exec(output);
      if (match) return match;
      if (Date.now() > deadline) throw new Error(`not seen in ${timeoutMs} ms: ${pattern}\n${output}`);
      await new Promise((r) => setTimeout(r, 200));
    }
  };

  beforeAll(() => {
    dataDir = mkdtempSync(path.join(tmpdir(), 'tas-embedded-'));
    child = spawn(process.execPath, ['--import', 'tsx', 'embedded/main.ts'], {
      cwd: REPO_ROOT,
      env: {
        ...process.env,
        DATA_DIR: dataDir,
        DATABASE_URL: '',
        PORT: '0',
        ADMIN_PORT: '0',
        KEEPER_ADMIN_PORT: '0',
        DEVNET_PORTS: '0,0',
        LOG_LEVEL: 'warn',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
    exited = new Promise((resolve) => child.once('exit', (code) => resolve(code)));
  });

  afterAll(async () => {
    if (child.exitCode === null) child.kill('SIGKILL');
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('serves the api, runs the keeper, executes a crossing limit order and stops on SIGTERM', async () => {
    const [, baseUrl] = await waitForOutput(/api: (http:\/\/\S+\/api\/v1)/, 120_000);
    await waitForOutput(/keeper: \S+ \(admin (http:\/\/\S+)\)/, 60_000);
    await waitForOutput(/ready in/, 60_000);
    const manifest = JSON.parse(readFileSync(path.join(dataDir, 'devnet.json'), 'utf8')) as ManifestFile;
    const chain = manifest.chains.find((c) => c.chainId === 1)!;
    const address = (symbol: string) => chain.tokens.find((t) => t.symbol === symbol)!.address;
    const provider = new JsonRpcProvider(chain.rpcUrl, 1, { staticNetwork: true });
    const maker = new Wallet(chain.accounts[2]!.privateKey, provider);
    const weth = new Contract(address('WETH'), ['function approve(address,uint256) returns (bool)'], maker);
    const usdc = new Contract(
      address('USDC'),
      ['function balanceOf(address) view returns (uint256)'],
      provider,
    );
    await (await weth.getFunction('approve')(chain.contracts.orderExecutor, MaxUint256)).wait();
    const signature = await maker.signTypedData(
      {
        name: 'TradeAggregationService',
        version: '1',
        chainId: 1,
        verifyingContract: chain.contracts.orderExecutor,
      },
      {
        PairAuthorization: [
          { name: 'maker', type: 'address' },
          { name: 'tokenIn', type: 'address' },
          { name: 'tokenOut', type: 'address' },
        ],
      },
      { maker: maker.address, tokenIn: address('WETH'), tokenOut: address('USDC') },
    );
    const client: ApiClient = await newAccountClient(baseUrl!);
    const before = (await usdc.getFunction('balanceOf')(maker.address)) as bigint;
    const body = {
      accountTo: maker.address,
      chainId: 1,
      inTokenAddress: address('WETH'),
      outTokenAddress: address('USDC'),
      tokenASymbol: 'WETH',
      tokenBSymbol: 'USDC',
      amount: '0.5',
      priceTrigger: '1000',
      price: '1000',
      expired: String(Date.now() + 3_600_000),
      gasPrice: '30',
      slippage: '1',
      signature,
    };
    // The keeper publishes reference prices once its pool state is loaded: until then creation is a 400.
    let id: string | undefined;
    for (const deadline = Date.now() + 90_000; !id;) {
      const res = await client.post<LimitOrderData>('/limit-order', body);
      if (res.status === 200) id = res.body.data!.id;
      else {
        expect(res.body.error?.message).toBe('Not exist reference price for this pair WETH/USDC');
        if (Date.now() > deadline) throw new Error('no reference price published');
        await new Promise((r) => setTimeout(r, 500));
      }
    }
    let order: LimitOrderData | undefined;
    for (const deadline = Date.now() + 60_000; order?.status !== 'completed';) {
      if (Date.now() > deadline) throw new Error(`order not completed: ${JSON.stringify(order)}`);
      await new Promise((r) => setTimeout(r, 500));
      order = (await client.get<LimitOrderData>(`/limit-order/${id}`)).body.data;
      expect(['pending', 'executing', 'submitted', 'completed']).toContain(order?.status);
    }
    const receipt = await provider.getTransactionReceipt(order.txHash);
    expect(receipt?.status).toBe(1);
    // 0.5 WETH at no less than the 1000 trigger less 1% slippage.
    const gained = ((await usdc.getFunction('balanceOf')(maker.address)) as bigint) - before;
    expect(gained).toBeGreaterThanOrEqual(495_000_000n);
    provider.destroy();

    child.kill('SIGTERM');
    expect(await exited).toBe(0);
  });
});
