import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { getAddress, JsonRpcProvider, parseEther, parseUnits } from 'ethers';
import type { LimitOrder, OrderAuthorization, TransactionStatus } from '../../../sdk/src';
import { REPO_ROOT } from '../../helpers/api-harness';
import type { EmbeddedService } from '../../helpers/embedded-service';
import { balanceOf, token } from '../../helpers/maker';

const execFileAsync = promisify(execFile);

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

/**
 * `tas` as an integrator runs it from the repo root: `npx tas ...` (the documented command) and the same bin with
 * plain node. A non-zero exit is returned, not thrown, so the test shows its stderr.
 */
async function tas(via: 'npx' | 'node', args: string[], env: Record<string, string>): Promise<Run> {
  const [file, argv] =
    via === 'npx'
      ? ['npx', ['tas', ...args]]
      : [process.execPath, [path.join(REPO_ROOT, 'sdk', 'bin', 'tas.cjs'), ...args]];
  try {
    const { stdout, stderr } = await execFileAsync(file, argv, {
      cwd: REPO_ROOT,
      env: { ...process.env, ...env },
      timeout: 180_000,
    });
    return { code: 0, stdout, stderr };
  } catch (err) {
    const failed = err as { code?: number; stdout?: string; stderr?: string; message: string };
    return {
      code: typeof failed.code === 'number' ? failed.code : -1,
      stdout: failed.stdout ?? '',
      stderr: failed.stderr ?? failed.message,
    };
  }
}

/** Only the CLI's own lines: npx may add npm's warnings about the user's npm config. */
const cliLines = (stderr: string): string[] =>
  stderr.split('\n').filter((line) => line !== '' && !line.startsWith('npm warn'));

/**
 * From nothing to an executed limit order with the CLI alone, against `npm start`: `tas account create --save`
 * writes the profile, `tas order create --wait` (the maker's wallet from TAS_PRIVATE_KEY and TAS_RPC_URL, as an
 * integrator's own) signs the pair, approves, creates the order and waits until the keeper has executed it;
 * the chain then shows the trade, and `tas order list` and `tas tx` report it.
 */
export function cliJourney(service: () => EmbeddedService): void {
  describe('CLI', () => {
    let home: string;
    let provider: JsonRpcProvider | undefined;

    beforeAll(() => {
      home = mkdtempSync(path.join(tmpdir(), 'tas-cli-journey-'));
    });
    afterAll(() => {
      provider?.destroy();
      if (home) rmSync(home, { recursive: true, force: true });
    });

    it('creates an account and a limit order that the service executes on-chain', async () => {
      const { baseUrl, chain } = service();
      const maker = chain.accounts[1]!;
      const [weth, usdc] = [token(chain, 'WETH'), token(chain, 'USDC')];
      provider = new JsonRpcProvider(chain.rpcUrl, chain.chainId, { staticNetwork: true, cacheTimeout: -1 });
      const profileFile = path.join(home, 'tas', 'profile.json');
      // Credentials only from the profile the journey saves (empty counts as unset).
      const env = {
        TAS_BASE_URL: baseUrl,
        TAS_PROFILE_FILE: profileFile,
        TAS_API_KEY_ID: '',
        TAS_SECRET_KEY: '',
        TAS_PASSPHRASE: '',
      };
      const wallet = { ...env, TAS_PRIVATE_KEY: maker.privateKey, TAS_RPC_URL: chain.rpcUrl };

      const account = await tas(
        'npx',
        ['account', 'create', '--name', 'cli-journey', '--password', 'cli-journey-password', '--save'],
        env,
      );
      expect({ code: account.code, stderr: cliLines(account.stderr) }).toEqual({ code: 0, stderr: [] });
      expect(account.stdout).toContain(`Saved as profile "default" in ${profileFile} (mode 0600)`);
      expect(statSync(profileFile).mode & 0o777).toBe(0o600);
      const saved = (JSON.parse(readFileSync(profileFile, 'utf8')) as { profiles: Record<string, unknown> })
        .profiles;
      expect(saved).toEqual({
        default: {
          baseUrl,
          apiKeyId: expect.any(String),
          secretKey: expect.any(String),
          passphrase: 'cli-journey-password',
        },
      });

      const [wethBefore, usdcBefore] = await Promise.all([
        balanceOf(provider, weth.address, maker.address),
        balanceOf(provider, usdc.address, maker.address),
      ]);
      const created = await tas(
        'npx',
        [
          'order',
          'create',
          '--chain',
          '1',
          '--sell',
          'WETH',
          '--buy',
          'USDC',
          '--amount',
          '0.5',
          '--trigger',
          '1000',
          '--wait',
          '--json',
        ],
        wallet,
      );
      if (created.code !== 0) console.warn(created.stderr, service().output().slice(-4000));
      expect({ code: created.code, stderr: cliLines(created.stderr) }).toEqual({ code: 0, stderr: [] });
      const order = JSON.parse(created.stdout) as LimitOrder;
      expect(order).toMatchObject({
        accountTo: maker.address,
        chainId: 1,
        inTokenAddress: getAddress(weth.address),
        outTokenAddress: getAddress(usdc.address),
        tokenASymbol: 'WETH',
        tokenBSymbol: 'USDC',
        amount: 0.5,
        priceTrigger: 1000,
        status: 'completed',
        reasonFail: [],
      });
      expect(order.txHash).toMatch(/^0x[0-9a-f]{64}$/);

      // On-chain: the execution succeeded, the maker got at least 0.5 × 1000 less 1 % slippage.
      const receipt = await provider.getTransactionReceipt(order.txHash);
      expect(receipt?.status).toBe(1);
      const [wethAfter, usdcAfter] = await Promise.all([
        balanceOf(provider, weth.address, maker.address),
        balanceOf(provider, usdc.address, maker.address),
      ]);
      expect(usdcAfter - usdcBefore).toBeGreaterThanOrEqual(parseUnits('495', 6));
      expect(wethBefore - wethAfter).toBeGreaterThanOrEqual(parseEther('0.5'));

      const listed = await tas('node', ['order', 'list', '--json'], env);
      expect({ code: listed.code, stderr: listed.stderr }).toEqual({ code: 0, stderr: '' });
      expect(JSON.parse(listed.stdout)).toEqual([order]);
      const table = await tas('node', ['order', 'list', '--status', 'completed'], env);
      expect(table.stdout).toMatch(
        new RegExp(`^${order.id} +completed +1 +WETH/USDC +0\\.5 +1000 .*${order.txHash}$`, 'm'),
      );

      const tx = await tas('node', ['tx', order.txHash, '--chain', '1', '--json'], env);
      expect({ code: tx.code, stderr: tx.stderr }).toEqual({ code: 0, stderr: '' });
      const status = JSON.parse(tx.stdout) as TransactionStatus;
      expect(status).toMatchObject({
        hash: order.txHash,
        chainId: 1,
        status: 'success',
        blockNumber: receipt!.blockNumber,
        gasUsed: receipt!.gasUsed.toString(),
      });
      expect(status.confirmations).toBeGreaterThanOrEqual(1);

      // The service now holds the maker's pair signature, and no order of it is open.
      const auth = await tas(
        'node',
        ['authorization', '--chain', '1', '--sell', 'WETH', '--buy', 'USDC', '--json'],
        wallet,
      );
      expect(auth.code).toBe(0);
      expect(JSON.parse(auth.stdout) as OrderAuthorization).toMatchObject({
        accountTo: maker.address,
        tokenIn: getAddress(weth.address),
        tokenOut: getAddress(usdc.address),
        validSignatureHeld: true,
        openLimitOrders: 0,
        required: '0',
      });
    });

    it('swaps with --send from the wallet, and creates, lists and cancels a DCA strategy', async () => {
      const { baseUrl, chain } = service();
      const maker = chain.accounts[1]!;
      const [weth, usdc] = [token(chain, 'WETH'), token(chain, 'USDC')];
      provider ??= new JsonRpcProvider(chain.rpcUrl, chain.chainId, {
        staticNetwork: true,
        cacheTimeout: -1,
      });
      const env = { TAS_BASE_URL: baseUrl, TAS_PROFILE_FILE: path.join(home, 'tas', 'profile.json') };
      const wallet = { ...env, TAS_PRIVATE_KEY: maker.privateKey, TAS_RPC_URL: chain.rpcUrl };

      const [usdcBefore, wethBefore] = await Promise.all([
        balanceOf(provider, usdc.address, maker.address),
        balanceOf(provider, weth.address, maker.address),
      ]);
      const swap = await tas(
        'node',
        ['swap', '--chain', '1', '--sell', 'USDC', '--buy', 'WETH', '--amount', '100', '--send', '--json'],
        wallet,
      );
      expect({ code: swap.code, stdout: swap.code === 0 ? '' : swap.stdout }).toEqual({
        code: 0,
        stdout: '',
      });
      const sent = JSON.parse(swap.stdout) as {
        hash: string;
        status: string;
        swap: { swap: { minOutAmount: string } };
      };
      expect(sent.status).toBe('success');
      const receipt = await provider.getTransactionReceipt(sent.hash);
      expect(receipt?.status).toBe(1);
      const [usdcAfter, wethAfter] = await Promise.all([
        balanceOf(provider, usdc.address, maker.address),
        balanceOf(provider, weth.address, maker.address),
      ]);
      expect(usdcBefore - usdcAfter).toBe(parseUnits('100', 6));
      // The swap's gas is paid in ETH, not WETH: the WETH received is at least the calldata's minimum.
      expect(wethAfter - wethBefore).toBeGreaterThanOrEqual(BigInt(sent.swap.swap.minOutAmount));

      const created = await tas(
        'node',
        // Far above the market: no iteration runs before the cancel.
        [
          'dca',
          'create',
          '--chain',
          '1',
          '--sell',
          'WETH',
          '--buy',
          'USDC',
          '--total',
          '0.3',
          '--iterations',
          '3',
          '--every',
          '3600',
          '--min-price',
          '1000000',
          '--json',
        ],
        wallet,
      );
      expect({
        code: created.code,
        stderr: cliLines(created.stderr).filter((l) => l.startsWith('error')),
      }).toEqual({
        code: 0,
        stderr: [],
      });
      const strategy = JSON.parse(created.stdout) as { id: string; status: string; accountTo: string };
      expect(strategy).toMatchObject({ status: 'active', accountTo: maker.address });
      const listed = await tas('node', ['dca', 'list', '--status', 'active', '--json'], env);
      expect((JSON.parse(listed.stdout) as Array<{ id: string }>).map((s) => s.id)).toEqual([strategy.id]);
      const cancelled = await tas('node', ['dca', 'cancel', strategy.id, '--json'], env);
      expect(cancelled.code).toBe(0);
      expect(JSON.parse(cancelled.stdout)).toMatchObject({ id: strategy.id, status: 'cancelled' });
      // PATCH is safe to repeat (spec): cancelling again answers the cancelled strategy.
      const again = await tas('node', ['dca', 'cancel', strategy.id, '--json'], env);
      expect(again.code).toBe(0);
      expect(JSON.parse(again.stdout)).toMatchObject({ id: strategy.id, status: 'cancelled' });
    });
  });
}
