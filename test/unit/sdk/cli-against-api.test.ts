import { chmodSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { TasClient, type Credentials, type LimitOrder } from '../../../sdk/src';
import { runCli } from '../../../sdk/src/cli/run';
import { startApi, type RunningApi } from '../../helpers/api-harness';
import { createStoreTarget, type StoreTarget } from '../../helpers/store-targets';

// Tokens of config/tokenlists/1.json.
const WETH = '0xC02aaA39b223FE8D0A0e5C4F27eAD9083C756Cc2';
const USDC = '0xA0b86991c6218b36c1d19D4a2e9Eb0cE3606eB48';
const MAKER = '0x90F79bf6EB2c4f870365E785982E1f101E93b906';
const SIGNATURE = `0x${'ab'.repeat(65)}`;
const UUID = '[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}';

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

/**
 * The CLI in-process (runCli, what bin/tas.cjs runs) against the real api over real HTTP: every signed command
 * below succeeds only when the CLI finds the credentials and the SDK signs them as the server verifies.
 */
describe('the tas CLI against the real api', () => {
  let target: StoreTarget;
  let running: RunningApi;
  let home: string;
  let profileFile: string;

  const tas = async (argv: string[], env: Record<string, string> = {}): Promise<Run> => {
    let stdout = '';
    let stderr = '';
    const code = await runCli(argv, {
      env: { TAS_BASE_URL: running.baseUrl, TAS_PROFILE_FILE: profileFile, ...env },
      homeDir: home,
      stdout: (text) => (stdout += text),
      stderr: (text) => (stderr += text),
    });
    return { code, stdout, stderr };
  };
  const savedProfiles = (): Record<string, Credentials & { baseUrl: string }> =>
    (
      JSON.parse(readFileSync(profileFile, 'utf8')) as {
        profiles: Record<string, Credentials & { baseUrl: string }>;
      }
    ).profiles;
  const modeOf = (file: string): number => statSync(file).mode & 0o777;

  beforeAll(async () => {
    target = await createStoreTarget('sqlite');
    running = await startApi(target);
    await running.store.referencePrices.upsert([
      {
        chainId: 1,
        baseSymbol: 'WETH',
        quoteSymbol: 'USDC',
        price: '3000',
        blockNumber: 1,
        updatedAt: Date.now(),
      },
    ]);
    home = mkdtempSync(path.join(tmpdir(), 'tas-cli-'));
    // Two directory levels that do not exist yet: --save creates both.
    profileFile = path.join(home, 'config', 'tas', 'profile.json');
  });
  afterAll(async () => {
    await running?.close();
    await target?.cleanup();
    if (home) rmSync(home, { recursive: true, force: true });
  });

  it('account create --save writes the profile with mode 0600 in a 0700 directory, and prints no secret', async () => {
    const run = await tas([
      'account',
      'create',
      '--name',
      'cli-tester',
      '--password',
      'cli-password-1',
      '--save',
    ]);
    expect(run).toMatchObject({ code: 0, stderr: '' });

    const profiles = savedProfiles();
    expect(Object.keys(profiles)).toEqual(['default']);
    const saved = profiles.default!;
    expect(saved).toEqual({
      baseUrl: running.baseUrl,
      apiKeyId: expect.stringMatching(new RegExp(`^${UUID}$`)),
      secretKey: expect.any(String),
      passphrase: 'cli-password-1',
    });
    expect(saved.secretKey.length).toBeGreaterThanOrEqual(32);
    expect(modeOf(profileFile)).toBe(0o600);
    expect(modeOf(path.dirname(profileFile))).toBe(0o700);
    expect(modeOf(path.dirname(path.dirname(profileFile)))).toBe(0o700);

    expect(run.stdout).toBe(
      [
        'Account created.',
        'name        cli-tester',
        `base URL    ${running.baseUrl}`,
        `API key ID  ${saved.apiKeyId}`,
        '',
        `Saved as profile "default" in ${profileFile} (mode 0600), with the secret key and the passphrase.`,
        'The API returns the secret key only once: that file now holds the only copy.',
        '',
      ].join('\n'),
    );
    expect(run.stdout).not.toContain(saved.secretKey);
    expect(run.stdout).not.toContain('cli-password-1');

    // The saved credentials sign: the api accepts them.
    const client = new TasClient({ baseUrl: running.baseUrl, credentials: saved });
    expect(await client.listLimitOrders()).toEqual([]);
  });

  it('account create --json prints the secret key, once, in the JSON and nowhere else', async () => {
    const run = await tas([
      'account',
      'create',
      '--name',
      'cli-json-tester',
      '--password',
      'cli-password-2',
      '--json',
    ]);
    expect(run).toMatchObject({ code: 0, stderr: '' });
    const printed = JSON.parse(run.stdout) as { apiKeyId: string; secretKey: string };
    expect(printed).toEqual({
      name: 'cli-json-tester',
      baseUrl: running.baseUrl,
      apiKeyId: expect.stringMatching(new RegExp(`^${UUID}$`)),
      secretKey: expect.any(String),
      profile: null,
      profileFile: null,
    });
    expect(run.stdout.split(printed.secretKey)).toHaveLength(2);
    expect(run.stdout).not.toContain('cli-password-2');
    // Not saved: the file still holds the first account only.
    expect(Object.keys(savedProfiles())).toEqual(['default']);
    const client = new TasClient({
      baseUrl: running.baseUrl,
      credentials: { apiKeyId: printed.apiKeyId, secretKey: printed.secretKey, passphrase: 'cli-password-2' },
    });
    expect(await client.listDcaStrategies()).toEqual([]);
  });

  it('account create without --save prints the secret key once with the note to store it', async () => {
    const run = await tas(['account', 'create', '--name', 'cli-text-tester', '--password', 'cli-password-3']);
    expect(run).toMatchObject({ code: 0, stderr: '' });
    const secret = /^secret key {2}(\S+)$/m.exec(run.stdout)?.[1];
    expect(secret).toEqual(expect.any(String));
    expect(run.stdout.split(secret!)).toHaveLength(2);
    expect(run.stdout).toContain('Store the secret key now: the API returns it only once.');
  });

  it('--save under another profile merges, and makes a too-open file 0600 again', async () => {
    chmodSync(profileFile, 0o644);
    const run = await tas([
      'account',
      'create',
      '--name',
      'cli-second',
      '--password',
      'cli-password-4',
      '--save',
      '--profile',
      'second',
    ]);
    expect(run).toMatchObject({ code: 0, stderr: '' });
    expect(Object.keys(savedProfiles())).toEqual(['default', 'second']);
    expect(savedProfiles().second).toMatchObject({ passphrase: 'cli-password-4', baseUrl: running.baseUrl });
    expect(modeOf(profileFile)).toBe(0o600);
  });

  it('--save under an existing profile name is refused before an account is created', async () => {
    const before = readFileSync(profileFile, 'utf8');
    // A dead URL: had the CLI tried to create the account, the error would be NETWORK_ERROR.
    const run = await tas(
      [
        'account',
        'create',
        '--name',
        'cli-again',
        '--password',
        'cli-password-5',
        '--save',
        '--profile',
        'second',
      ],
      { TAS_BASE_URL: 'http://127.0.0.1:1/api/v1' },
    );
    expect(run).toEqual({
      code: 1,
      stdout: '',
      stderr: `error: PROFILE_EXISTS: profile "second" already exists in ${profileFile}: choose another with --profile NAME\n`,
    });
    expect(readFileSync(profileFile, 'utf8')).toBe(before);
  });

  it('chains --json prints the enabled chain IDs as JSON and nothing else', async () => {
    const expected = {
      code: 0,
      stdout: `${JSON.stringify([1, 10, 56, 137, 8453, 42161, 43114, 59144], null, 2)}\n`,
      stderr: '',
    };
    expect(await tas(['chains', '--json'])).toEqual(expected);
    // Global options may come before the command too.
    expect(await tas(['--json', '--profile', 'default', 'chains'])).toEqual(expected);
  });

  it('tokens --chain 1 --json prints the chain token list exactly', async () => {
    const run = await tas(['tokens', '--chain', '1', '--json']);
    expect(run).toMatchObject({ code: 0, stderr: '' });
    expect(JSON.parse(run.stdout)).toEqual([
      { address: `0x${'e'.repeat(40)}`, symbol: 'ETH', decimals: 18, name: 'ETH' },
      { address: WETH, symbol: 'WETH', decimals: 18, name: 'Wrapped Ether' },
      { address: USDC, symbol: 'USDC', decimals: 6, name: 'USD Coin' },
      {
        address: '0xdAC17F958D2ee523a2206206994597C13D831ec7',
        symbol: 'USDT',
        decimals: 6,
        name: 'Tether USD',
      },
      {
        address: '0x6B175474E89094C44Da98b954EedeAC495271d0F',
        symbol: 'DAI',
        decimals: 18,
        name: 'Dai Stablecoin',
      },
      {
        address: '0x2260FAC5E5542a773Aa44fBCfeDf7C193bc2C599',
        symbol: 'WBTC',
        decimals: 8,
        name: 'Wrapped BTC',
      },
    ]);

    const table = await tas(['tokens', '--chain', '1']);
    expect(table.stdout.split('\n').slice(0, 3)).toEqual([
      'SYMBOL  DECIMALS  ADDRESS                                     NAME',
      `ETH     18        0x${'e'.repeat(40)}  ETH`,
      `WETH    18        ${WETH}  Wrapped Ether`,
    ]);
  });

  describe('limit orders', () => {
    let created: LimitOrder;

    beforeAll(async () => {
      // Created with the SDK (no chain here to sign and approve on), under the CLI's saved default profile.
      const client = new TasClient({ baseUrl: running.baseUrl, credentials: savedProfiles().default! });
      created = await client.createLimitOrder({
        accountTo: MAKER,
        chainId: 1,
        inTokenAddress: WETH,
        outTokenAddress: USDC,
        tokenASymbol: 'WETH',
        tokenBSymbol: 'USDC',
        amount: '1.5',
        priceTrigger: '3500',
        price: '3500',
        expired: String(Date.now() + 86_400_000),
        gasPrice: '20',
        slippage: '0.5',
        signature: SIGNATURE,
      });
    });

    it('order list --json prints the orders of the profile API key exactly', async () => {
      const run = await tas(['order', 'list', '--json']);
      expect(run).toEqual({ code: 0, stdout: `${JSON.stringify([created], null, 2)}\n`, stderr: '' });

      // The maker filter is sent in EIP-55 form, as the orders are stored.
      const filtered = await tas([
        'order',
        'list',
        '--status',
        'pending',
        '--chain',
        '1',
        '--maker',
        MAKER.toLowerCase(),
        '--json',
      ]);
      expect(JSON.parse(filtered.stdout)).toEqual([created]);
      expect(JSON.parse((await tas(['order', 'list', '--status', 'completed', '--json'])).stdout)).toEqual(
        [],
      );
      // Another profile is another API key: it sees none of them.
      expect(JSON.parse((await tas(['order', 'list', '--json', '--profile', 'second'])).stdout)).toEqual([]);
    });

    it('order list prints a table; order get and order cancel print the order', async () => {
      const table = await tas(['order', 'list']);
      expect(table.code).toBe(0);
      const [header, row, end] = table.stdout.split('\n');
      expect(header).toMatch(/^ID +STATUS +CHAIN +PAIR +AMOUNT +TRIGGER +EXPIRES +CREATED +TX HASH$/);
      expect(row).toMatch(
        new RegExp(`^${created.id} +pending +1 +WETH/USDC +1\\.5 +3500 +\\S+Z +${created.createdAt} +-$`),
      );
      expect(end).toBe('');

      const got = await tas(['order', 'get', created.id, '--json']);
      expect(JSON.parse(got.stdout)).toEqual(created);
      const text = await tas(['order', 'get', created.id]);
      expect(text.stdout).toMatch(new RegExp(`^id +${created.id}$`, 'm'));
      expect(text.stdout).toMatch(
        new RegExp(`^expired +${created.expired} \\(\\d{4}-\\d\\d-\\d\\dT[\\d:.]+Z\\)$`, 'm'),
      );

      const cancelled = await tas(['order', 'cancel', created.id, '--json']);
      expect(cancelled.code).toBe(0);
      expect(JSON.parse(cancelled.stdout)).toMatchObject({ id: created.id, status: 'cancelled' });
      const again = await tas(['order', 'cancel', created.id]);
      expect(again.code).toBe(1);
      expect(again.stderr).toMatch(
        new RegExp(`^error: CONFLICT \\(HTTP 409\\): .+ \\(request id ${UUID}\\)\\n$`),
      );
    });
  });

  it('a validation error: exit 1, one stderr line with the code, the field detail and the request id', async () => {
    for (const json of [[], ['--json']]) {
      const run = await tas(['tx', '0x123', '--chain', '1', ...json]);
      expect(run.code).toBe(1);
      expect(run.stdout).toBe('');
      expect(run.stderr).toMatch(
        new RegExp(
          '^error: VALIDATION_ERROR \\(HTTP 400\\): Invalid transaction hash ' +
            `\\[hash: Must be a 0x-prefixed 32-byte hex hash\\] \\(request id ${UUID}\\)\\n$`,
        ),
      );
    }
  });

  it('the environment wins over the profile', async () => {
    const { apiKeyId, secretKey } = savedProfiles().default!;
    // A wrong passphrase from the environment replaces the profile's: the gateway refuses the signature.
    const wrong = await tas(['chains'], { TAS_PASSPHRASE: 'not-the-passphrase' });
    expect(wrong.code).toBe(1);
    expect(wrong.stderr).toMatch(/^error: FORBIDDEN \(HTTP 403\): Forbidden \(request id \S+\)\n$/m);

    // All three from the environment: the profile file is not even read (it may be anywhere, or absent).
    const fromEnv = await tas(['chains', '--json'], {
      TAS_API_KEY_ID: apiKeyId,
      TAS_SECRET_KEY: secretKey,
      TAS_PASSPHRASE: 'cli-password-1',
      TAS_PROFILE_FILE: path.join(home, 'absent.json'),
    });
    expect(fromEnv).toMatchObject({ code: 0, stderr: '' });
    expect(JSON.parse(fromEnv.stdout)).toContain(1);
  });

  it('resolves token symbols through GET /tokens: an unknown one is a local error', async () => {
    const run = await tas(['quote', '--chain', '1', '--sell', 'WETH', '--buy', 'NOPE', '--amount', '1']);
    expect(run).toEqual({
      code: 1,
      stdout: '',
      stderr: 'error: UNKNOWN_TOKEN: no token NOPE in the token list of chain 1 (GET /tokens)\n',
    });
  });
});
