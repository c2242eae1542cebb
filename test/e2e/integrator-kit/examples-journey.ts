import { spawn, spawnSync } from 'node:child_process';
import { JsonRpcProvider, Wallet } from 'ethers';
import type { ManifestChain } from '../../../devnet/manifest';
import { REPO_ROOT } from '../../helpers/api-harness';
import { newAccountClient, type Envelope } from '../../helpers/api-client';
import type { EmbeddedService } from '../../helpers/embedded-service';
import {
  balanceOf,
  executionEvents,
  onchainIdOf,
  signPair,
  token,
  type LimitOrderJson,
} from '../../helpers/maker';

/**
 * The examples of examples/ run as a reader runs them, as child processes against `npm start`, with the devnet's
 * accounts[3] as the maker. Each one's printed answers are checked, and what it did is checked through the API
 * and on the chain.
 */

const MAKER_ACCOUNT = 3;
const TX_HASH = /^0x[0-9a-f]{64}$/;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs a command from the repository root; settings of the developer's own TAS_* environment never leak in. */
function run(command: string, args: string[], env: Record<string, string>, timeoutMs: number): Promise<Run> {
  const inherited = Object.fromEntries(
    Object.entries(process.env).filter(([key]) => !key.startsWith('TAS_')),
  );
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, {
      cwd: REPO_ROOT,
      env: { ...inherited, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.once('error', reject);
    child.once('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

/** Exit code 0 and nothing on stderr but npm's own warnings (on failure, the stderr shows why). */
function expectSucceeded(result: Run): void {
  const stderr = result.stderr
    .split('\n')
    .filter((line) => line.trim() !== '' && !line.startsWith('npm warn'))
    .join('\n');
  expect({ code: result.code, stderr }).toEqual({ code: 0, stderr: '' });
}

/**
 * Whether the example's tools are installed. Under CI a missing one fails the test; elsewhere the test says so
 * and passes, so a machine without python3 can still run the rest of the kit.
 */
function toolsPresent(tools: Array<[string, string]>): boolean {
  const missing = tools.filter(([tool, arg]) => spawnSync(tool, [arg], { stdio: 'ignore' }).status !== 0);
  if (missing.length === 0) return true;
  const names = missing.map(([tool]) => tool).join(', ');
  if (process.env.CI === 'true') throw new Error(`not installed: ${names}`);
  console.warn(`examples journey: not installed, not run: ${names}`);
  return false;
}

/** One answer an example printed: its header line `--- METHOD TARGET -> HTTP STATUS`, then the body. */
interface Step {
  method: string;
  target: string;
  status: number;
  body: Envelope<unknown>;
}

/** The answers, and the other `--- ` lines (skipped steps, notes), in printed order. */
function printed(stdout: string): { steps: Step[]; notes: string[] } {
  const steps: Step[] = [];
  const notes: string[] = [];
  let open: { method: string; target: string; status: number; lines: string[] } | undefined;
  const close = (): void => {
    if (!open) return;
    const text = open.lines.join('\n').trim();
    steps.push({ ...open, body: JSON.parse(text) as Envelope<unknown> });
    open = undefined;
  };
  for (const line of stdout.split('\n')) {
    if (!line.startsWith('--- ')) {
      open?.lines.push(line);
      continue;
    }
    close();
    const header = /^--- (GET|POST|PATCH|DELETE) (\S+) -> HTTP (\d+)$/.exec(line);
    if (header) open = { method: header[1]!, target: header[2]!, status: Number(header[3]), lines: [] };
    else notes.push(line.slice(4));
  }
  close();
  return { steps, notes };
}

/** `data` of a successful answer (a failed one fails the test with its body). */
function dataOf<T>(step: Step | undefined): T {
  expect({ status: step?.status, success: step?.body.success }).toEqual({ status: 200, success: true });
  return step!.body.data as T;
}

function summary(steps: Step[]): string[] {
  return steps.map((s) => `${s.method} ${s.target} ${s.status}`);
}

interface TokensData {
  chainId: number;
  tokens: Array<{ address: string; symbol: string }>;
}
interface AuthorizationData {
  chainId: number;
  accountTo: string;
  tokenIn: string;
  tokenOut: string;
  spender: string;
}

/**
 * The answers both the curl and the Python example print before their limit order steps: chain 1 among the
 * chains, WETH and USDC listed as in the manifest, a quote for 1 WETH paying USDC, and (with a maker) the order
 * authorization naming the chain's OrderExecutor as the spender.
 */
function expectReadSteps(chain: ManifestChain, maker: string | undefined, steps: Step[]): void {
  const find = (method: string, prefix: string): Step | undefined =>
    steps.find((s) => s.method === method && s.target.startsWith(prefix));
  expect(dataOf<{ chainIds: number[] }>(find('GET', '/chains')).chainIds).toContain(1);
  const tokens = dataOf<TokensData>(find('GET', '/tokens'));
  expect(tokens.chainId).toBe(1);
  for (const symbol of ['WETH', 'USDC']) {
    expect(tokens.tokens.find((t) => t.symbol === symbol)?.address).toBe(token(chain, symbol).address);
  }
  const quote = dataOf<{ mode: string; quote: { outAmount: string } }>(find('POST', '/quotes'));
  expect(quote.mode).toBe('single-chain');
  expect(BigInt(quote.quote.outAmount)).toBeGreaterThan(0n);
  if (maker !== undefined) {
    expect(dataOf<AuthorizationData>(find('GET', '/order-authorization?'))).toMatchObject({
      chainId: 1,
      accountTo: maker,
      tokenIn: token(chain, 'WETH').address,
      tokenOut: token(chain, 'USDC').address,
      spender: chain.contracts.orderExecutor,
    });
  }
  // Every signed answer names the key that signed it.
  const keys = new Set(steps.filter((s) => s.target !== '/accounts').map((s) => s.body.meta.apiKeyId));
  expect(keys.size).toBe(1);
  expect([...keys][0]).toMatch(UUID);
}

export function examplesJourney(service: () => EmbeddedService): void {
  describe('examples', () => {
    const maker = (): string => service().chain.accounts[MAKER_ACCOUNT]!.address;
    const weth = (): string => token(service().chain, 'WETH').address;
    const usdc = (): string => token(service().chain, 'USDC').address;

    it('curl: trade.sh creates an account and signs every call with openssl', async () => {
      if (
        !toolsPresent([
          ['bash', '--version'],
          ['curl', '--version'],
          ['openssl', 'version'],
        ])
      )
        return;
      const result = await run(
        'bash',
        ['examples/curl/trade.sh'],
        { TAS_BASE_URL: service().baseUrl, MAKER_ADDRESS: maker() },
        60_000,
      );
      expectSucceeded(result);
      const { steps } = printed(result.stdout);
      expect(summary(steps)).toEqual([
        'POST /accounts 200',
        'GET /chains 200',
        'GET /tokens?chainId=1 200',
        'POST /quotes 200',
        `GET /order-authorization?tokenOut=${usdc()}&tokenIn=${weth()}&chainId=1&accountTo=${maker()} 200`,
        'GET /limit-order?status=pending&chainId=1 200',
      ]);
      const account = dataOf<{ apiKey: string; secretKey: string }>(steps[0]);
      expect(account.secretKey).toBe('(hidden)');
      expectReadSteps(service().chain, maker(), steps);
      expect(steps[1]!.body.meta.apiKeyId).toBe(account.apiKey);
      // The query sent unsorted was signed sorted: the fresh account has no pending order.
      expect(dataOf(steps[5])).toEqual([]);
    });

    it('python: trade.py creates an account, quotes and skips the maker steps without a maker', async () => {
      if (!toolsPresent([['python3', '--version']])) return;
      const result = await run(
        'python3',
        ['examples/python/trade.py'],
        { TAS_BASE_URL: service().baseUrl },
        60_000,
      );
      expectSucceeded(result);
      const { steps, notes } = printed(result.stdout);
      expect(summary(steps)).toEqual([
        'POST /accounts 200',
        'GET /chains 200',
        'GET /tokens?chainId=1 200',
        'POST /quotes 200',
        'GET /limit-order?status=pending&chainId=1 200',
      ]);
      expect(notes).toEqual([
        'GET /order-authorization skipped: set MAKER_ADDRESS to a maker wallet address to read it',
        'limit order skipped: set MAKER_ADDRESS and PAIR_SIGNATURE to create, change and cancel one',
      ]);
      const account = dataOf<{ apiKey: string; secretKey: string }>(steps[0]);
      expect(account.secretKey).toBe('(hidden)');
      expectReadSteps(service().chain, undefined, steps);
      expect(steps[1]!.body.meta.apiKeyId).toBe(account.apiKey);
      expect(dataOf(steps[4])).toEqual([]);
    });

    it('python: trade.py creates, reads, changes and cancels a limit order for a maker', async () => {
      if (!toolsPresent([['python3', '--version']])) return;
      const { chain, baseUrl } = service();
      const client = await newAccountClient(baseUrl, 'python-example-journey');
      const signer = new Wallet(chain.accounts[MAKER_ACCOUNT]!.privateKey);
      const result = await run(
        'python3',
        ['examples/python/trade.py'],
        {
          TAS_BASE_URL: baseUrl,
          TAS_API_KEY_ID: client.credentials.apiKey,
          TAS_SECRET_KEY: client.credentials.secretKey,
          TAS_PASSPHRASE: client.credentials.passphrase,
          MAKER_ADDRESS: maker(),
          // Granted to the key the script creates the order with.
          PAIR_SIGNATURE: await signPair(signer, chain, maker(), weth(), usdc(), client.credentials.apiKey),
        },
        60_000,
      );
      expectSucceeded(result);
      for (const secret of [client.credentials.secretKey, client.credentials.passphrase]) {
        expect(result.stdout).not.toContain(secret);
      }
      const { steps, notes } = printed(result.stdout);
      const created = dataOf<LimitOrderJson>(
        steps.find((s) => s.method === 'POST' && s.target === '/limit-order'),
      );
      const path = `/limit-order/${created.id}`;
      expect(notes).toEqual(['using the account of TAS_API_KEY_ID']);
      expect(summary(steps)).toEqual([
        'GET /chains 200',
        'GET /tokens?chainId=1 200',
        'POST /quotes 200',
        `GET /order-authorization?chainId=1&accountTo=${maker()}&tokenIn=${weth()}&tokenOut=${usdc()} 200`,
        'GET /limit-order?status=pending&chainId=1 200',
        'POST /limit-order 200',
        `GET ${path} 200`,
        `PATCH ${path} 200`,
        `DELETE ${path} 200`,
        `GET ${path} 200`,
      ]);
      expectReadSteps(chain, maker(), steps);
      expect(steps[0]!.body.meta.apiKeyId).toBe(client.credentials.apiKey);
      expect(created).toMatchObject({
        accountTo: maker(),
        chainId: 1,
        inTokenAddress: weth(),
        outTokenAddress: usdc(),
        amount: 0.1,
        priceTrigger: 100000,
        price: 100000,
        status: 'pending',
      });
      expect(dataOf<LimitOrderJson>(steps[6])).toMatchObject({ id: created.id, status: 'pending' });
      expect(dataOf<LimitOrderJson>(steps[7])).toMatchObject({
        id: created.id,
        priceTrigger: 120000,
        price: 120000,
        status: 'pending',
      });
      expect(dataOf<LimitOrderJson>(steps[8])).toMatchObject({ id: created.id, status: 'cancelled' });

      // The order as the API keeps it: changed, then cancelled, never executed.
      const stored = await client.get<LimitOrderJson>(path);
      expect(stored.status).toBe(200);
      expect(stored.body.data).toMatchObject({
        id: created.id,
        status: 'cancelled',
        priceTrigger: 120000,
        price: 120000,
        amount: 0.1,
        txHash: '',
      });
      expect(stored.body.data!.deletedAt).not.toBe('');
      const listed = await client.get<LimitOrderJson[]>(`/limit-order?accountTo=${maker()}`);
      expect(listed.body.data!.map((o) => [o.id, o.status])).toEqual([[created.id, 'cancelled']]);
    });

    it('typescript: limit-order.ts goes from nothing to an executed limit order with the SDK', async () => {
      const { chain, baseUrl } = service();
      const account = chain.accounts[MAKER_ACCOUNT]!;
      const provider = new JsonRpcProvider(chain.rpcUrl, chain.chainId, {
        staticNetwork: true,
        cacheTimeout: -1,
      });
      try {
        const before = {
          weth: await balanceOf(provider, weth(), account.address),
          usdc: await balanceOf(provider, usdc(), account.address),
        };
        const result = await run(
          'npx',
          ['tsx', 'examples/typescript/limit-order.ts'],
          { TAS_BASE_URL: baseUrl, TAS_PRIVATE_KEY: account.privateKey, TAS_RPC_URL: chain.rpcUrl },
          180_000,
        );
        expectSucceeded(result);
        expect(result.stdout).not.toContain(account.privateKey.replace(/^0x/, ''));
        // The account the example created: its key id is the order's integrator on-chain.
        const apiKey = /^account: (\S+)$/m.exec(result.stdout)?.[1];
        expect(apiKey).toMatch(UUID);
        const [, orderId] = /^order (\S+): pending \(maker (\S+)\)$/m.exec(result.stdout) ?? [];
        expect(result.stdout).toContain(`order ${orderId}: pending (maker ${account.address})`);
        expect(result.stdout).toContain(`order ${orderId}: completed\n`);
        const txHash = /^tx hash: (\S+)$/m.exec(result.stdout)![1]!;
        expect(txHash).toMatch(TX_HASH);

        // The chain proves it: the OrderExecutor executed this order for the maker and paid USDC.
        const { receipt, executed } = await executionEvents(provider, chain, txHash);
        expect(receipt.status).toBe(1);
        const amountIn = 500_000_000_000_000_000n;
        const onchainId = onchainIdOf({
          id: orderId!,
          apiKey: apiKey!,
          maker: account.address,
          tokenIn: weth(),
          tokenOut: usdc(),
          amountIn,
        });
        const event = executed.find((e) => e.onchainId === onchainId);
        expect(event).toMatchObject({ maker: account.address, tokenIn: weth(), tokenOut: usdc(), amountIn });
        const after = {
          weth: await balanceOf(provider, weth(), account.address),
          usdc: await balanceOf(provider, usdc(), account.address),
        };
        expect(after.usdc - before.usdc).toBe(event!.amountOut);
        // 0.5 WETH at the trigger of 1000 less the SDK's default slippage of 1 %, at least.
        expect(event!.amountOut).toBeGreaterThanOrEqual(495_000_000n);
        expect(before.weth - after.weth).toBe(event!.amountIn + event!.fee);
      } finally {
        provider.destroy();
      }
    });
  });
}
