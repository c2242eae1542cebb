import { execFile } from 'node:child_process';
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { runCli } from '../../../sdk/src/cli/run';
import { cellText, renderTable } from '../../../sdk/src/cli/table';
import { REPO_ROOT } from '../../helpers/api-harness';

const execFileAsync = promisify(execFile);
const BIN = path.join(REPO_ROOT, 'sdk', 'bin', 'tas.cjs');
// anvil's well-known account 3: never holds anything real.
const TEST_KEY = '0x7c852118294e51e653712a81e05800f419141751be58f605c371e15141b007a6';
const PROFILE = { apiKeyId: 'key-id', secretKey: 'the-secret-key-value', passphrase: 'the-passphrase' };

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

/**
 * What the CLI decides before (or instead of) any request: usage errors, help, the profile file's permissions,
 * credentials and wallet from the environment. A fetch that fails the test proves nothing was sent.
 */
describe('the tas CLI before any request', () => {
  let home: string;
  const requests: string[] = [];

  const tas = async (argv: string[], env: Record<string, string> = {}): Promise<Run> => {
    let stdout = '';
    let stderr = '';
    const code = await runCli(argv, {
      env: { TAS_PROFILE_FILE: path.join(home, 'profile.json'), ...env },
      homeDir: home,
      stdout: (text) => (stdout += text),
      stderr: (text) => (stderr += text),
      fetch: (input) => {
        requests.push(String(input));
        return Promise.reject(new Error('no request expected'));
      },
    });
    return { code, stdout, stderr };
  };

  /** bin/tas.cjs as `npx tas` runs it: a real process, its real exit code. */
  const tasProcess = async (argv: string[], env: Record<string, string> = {}): Promise<Run> => {
    try {
      const { stdout, stderr } = await execFileAsync(process.execPath, [BIN, ...argv], {
        cwd: REPO_ROOT,
        env: { ...process.env, TAS_PROFILE_FILE: path.join(home, 'profile.json'), ...env },
      });
      return { code: 0, stdout, stderr };
    } catch (err) {
      const failed = err as { code: number; stdout: string; stderr: string };
      return { code: failed.code, stdout: failed.stdout, stderr: failed.stderr };
    }
  };

  const writeProfile = (file: string, mode: number): void => {
    writeFileSync(file, JSON.stringify({ profiles: { default: PROFILE } }));
    // After the write: the umask would take bits from a mode given to it.
    chmodSync(file, mode);
  };

  beforeAll(() => {
    home = mkdtempSync(path.join(tmpdir(), 'tas-cli-local-'));
  });
  afterAll(() => {
    if (home) rmSync(home, { recursive: true, force: true });
  });
  afterEach(() => {
    expect(requests).toEqual([]);
  });

  describe('usage errors exit 2 with the command usage', () => {
    it('a missing option', async () => {
      const run = await tas(['order', 'create', '--chain', '1', '--buy', 'USDC']);
      expect(run).toEqual({
        code: 2,
        stdout: '',
        stderr: [
          'error: missing --sell',
          '',
          'Usage: tas order create --chain N --sell T --buy T --amount A --trigger P [--expires DURATION] ' +
            '[--slippage S] [--gas-price G] [--wait] [--timeout DURATION] [--json] [--profile NAME]',
          'Run `tas order create --help` for the options.',
          '',
        ].join('\n'),
      });
    });

    it.each([
      ['tokens', ['--chain', 'abc'], 'error: --chain must be a positive whole number, not "abc"'],
      ['tokens', ['--chain', '1', '--colour'], "error: Unknown option '--colour'."],
      ['tokens', ['--chain'], "error: Option '--chain <value>' argument missing"],
      ['tx', ['--chain', '1'], 'error: missing HASH'],
      ['tx', ['0xaa', '0xbb', '--chain', '1'], 'error: unexpected argument "0xbb"'],
      [
        'order create',
        ['--chain', '1', '--sell', 'A', '--buy', 'B', '--amount', '1', '--trigger', '2', '--expires', '1y'],
        'error: --expires must be a positive duration such as 3600, 3600s, 90m, 12h, 1d or 2w',
      ],
      [
        'dca create',
        [
          '--chain',
          '1',
          '--sell',
          'A',
          '--buy',
          'B',
          '--total',
          'lots',
          '--iterations',
          '2',
          '--every',
          '60',
        ],
        'error: --total must be a number, not "lots"',
      ],
    ])('tas %s %j', async (command, rest, line) => {
      const run = await tas([...command.split(' '), ...rest]);
      expect(run.code).toBe(2);
      expect(run.stdout).toBe('');
      expect(run.stderr.split('\n')[0]!.startsWith(line)).toBe(true);
      expect(run.stderr).toContain(`\n\nUsage: tas ${command} `);
      expect(run.stderr.endsWith(`Run \`tas ${command} --help\` for the options.\n`)).toBe(true);
    });

    it('an unknown command or a group without its subcommand', async () => {
      const unknown = await tas(['orders', 'list']);
      expect(unknown.code).toBe(2);
      expect(unknown.stderr).toMatch(/^error: unknown command "orders"\n\ntas: the command line/);
      const group = await tas(['dca']);
      expect(group.code).toBe(2);
      expect(group.stderr).toMatch(/^error: dca: which command\?\n\nUsage: tas dca <command> \[options\]\n/);
      expect(group.stderr).toContain('\n  dca cancel  ');
      const none = await tas([]);
      expect(none.code).toBe(2);
      expect(none.stderr).toMatch(/^error: no command given\n/);
    });

    it('as a process: exit code 2 and nothing on stdout', async () => {
      const run = await tasProcess(['tokens', '--chain', 'one']);
      expect(run.code).toBe(2);
      expect(run.stdout).toBe('');
      expect(run.stderr).toBe(
        [
          'error: --chain must be a positive whole number, not "one"',
          '',
          'Usage: tas tokens --chain N [--json] [--profile NAME]',
          'Run `tas tokens --help` for the options.',
          '',
        ].join('\n'),
      );
    });
  });

  describe('help', () => {
    it.each([[['help']], [['--help']], [['-h']]])(
      '%j prints the general help on stdout, exit 0',
      async (argv) => {
        const run = await tas(argv);
        expect(run).toMatchObject({ code: 0, stderr: '' });
        expect(run.stdout).toMatch(/^tas: the command line of the trade aggregation API\n/);
        expect(run.stdout).toContain('\n  order create     create a limit order');
        expect(run.stdout).toContain(
          'Exit codes: 0 success, 1 error (API, network, chain, profile), 2 usage error.',
        );
      },
    );

    it.each([
      [['help', 'order', 'create']],
      [['order', 'create', '--help']],
      [['order', 'create', '--chain', 'x', '-h']],
    ])('%j prints the command help, whatever else is wrong', async (argv) => {
      const run = await tas(argv);
      expect(run).toMatchObject({ code: 0, stderr: '' });
      expect(run.stdout).toMatch(
        /^Usage: tas order create --chain N --sell T --buy T --amount A --trigger P /,
      );
      expect(run.stdout).toContain(
        '\n  --trigger P         price trigger: units of the bought token per 1 sold token (required)\n',
      );
    });

    it('a group help lists its commands', async () => {
      const run = await tas(['help', 'order']);
      expect(run.code).toBe(0);
      expect(run.stdout.split('\n').filter((l) => l.startsWith('  order '))).toHaveLength(4);
    });
  });

  describe('the profile file', () => {
    it.each([0o640, 0o604, 0o660])(
      'is refused when group or others can access it (mode %o)',
      async (mode) => {
        const file = path.join(home, `open-${mode.toString(8)}.json`);
        writeProfile(file, mode);
        const run = await tas(['chains'], { TAS_PROFILE_FILE: file });
        expect(run).toEqual({
          code: 1,
          stdout: '',
          stderr:
            `error: PROFILE_PERMISSIONS: permissions 0${mode.toString(8)} for profile file ${file} are too open: ` +
            `it holds secret keys, so group and others must have no access; refused (run: chmod 600 ${file})\n`,
        });
        expect(run.stderr).not.toContain(PROFILE.secretKey);
      },
    );

    it('is refused as a process too (exit 1)', async () => {
      const file = path.join(home, 'open-process.json');
      writeProfile(file, 0o644);
      const run = await tasProcess(['order', 'list'], { TAS_PROFILE_FILE: file });
      expect(run.code).toBe(1);
      expect(run.stdout).toBe('');
      expect(run.stderr).toMatch(/^error: PROFILE_PERMISSIONS: permissions 0644 for profile file .+\n$/);
    });

    it('is not read when the environment holds all three credentials', async () => {
      const file = path.join(home, 'open-unused.json');
      writeProfile(file, 0o644);
      // The request is attempted (and fails in the stub fetch): the profile's permissions did not matter.
      const run = await tas(['chains'], {
        TAS_PROFILE_FILE: file,
        TAS_API_KEY_ID: 'k',
        TAS_SECRET_KEY: 's',
        TAS_PASSPHRASE: 'p',
        TAS_BASE_URL: 'http://127.0.0.1:9/api/v1',
      });
      expect(run.code).toBe(1);
      expect(run.stderr).toMatch(/error: NETWORK_ERROR \(no HTTP response\): /);
      expect(requests.splice(0).every((url) => url === 'http://127.0.0.1:9/api/v1/chains')).toBe(true);
    });

    it('explains missing credentials and a missing profile', async () => {
      const none = await tas(['chains'], { TAS_PROFILE_FILE: path.join(home, 'absent.json') });
      expect(none.code).toBe(1);
      expect(none.stderr).toBe(
        `error: MISSING_CREDENTIALS: no credentials: no profile file at ${path.join(home, 'absent.json')}; set ` +
          'TAS_API_KEY_ID, TAS_SECRET_KEY and TAS_PASSPHRASE, or create an account with ' +
          '`tas account create --name N --password P --save`\n',
      );
      const file = path.join(home, 'private.json');
      writeProfile(file, 0o600);
      const other = await tas(['chains', '--profile', 'prod'], { TAS_PROFILE_FILE: file });
      expect(other.stderr).toMatch(
        new RegExp(
          `^error: MISSING_CREDENTIALS: no credentials: profile file ${file} has no profile "prod"; `,
        ),
      );
      writeFileSync(file, '{"profiles": {"default": {"apiKeyId": 5}}}');
      const invalid = await tas(['chains'], { TAS_PROFILE_FILE: file });
      expect(invalid.stderr).toBe(
        `error: PROFILE_INVALID: profile file ${file}: profile "default": apiKeyId must be a string\n`,
      );
    });
  });

  describe('the wallet comes from the environment only', () => {
    it('order create without TAS_PRIVATE_KEY and TAS_RPC_URL says what to set', async () => {
      const run = await tas(
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
          '1',
          '--trigger',
          '2',
        ],
        {
          TAS_RPC_URL: 'http://127.0.0.1:9',
        },
      );
      expect(run).toEqual({
        code: 1,
        stdout: '',
        stderr:
          "error: MISSING_WALLET: order create needs the maker's wallet: set TAS_PRIVATE_KEY and TAS_RPC_URL " +
          '(a node of chain 1)\n',
      });
    });

    it('a malformed TAS_PRIVATE_KEY is refused without being echoed', async () => {
      const bad = `${TEST_KEY.slice(0, -1)}z`;
      const run = await tas(['authorization', '--chain', '1', '--sell', 'WETH', '--buy', 'USDC'], {
        TAS_PRIVATE_KEY: bad,
      });
      expect(run.code).toBe(1);
      expect(run.stderr).toBe(
        'error: INVALID_PRIVATE_KEY: TAS_PRIVATE_KEY is not a private key (32 bytes in hex, 0x optional)\n',
      );
      const zero = await tas(['authorization', '--chain', '1', '--sell', 'WETH', '--buy', 'USDC'], {
        TAS_PRIVATE_KEY: `0x${'0'.repeat(64)}`,
      });
      expect(zero.stderr).toBe(
        'error: INVALID_PRIVATE_KEY: TAS_PRIVATE_KEY is not a valid secp256k1 private key\n',
      );
    });

    it('an RPC that does not answer is reported without its URL', async () => {
      const rpc = 'http://127.0.0.1:9/secret-api-key-in-path';
      const run = await tas(
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
          '1',
          '--iterations',
          '2',
          '--every',
          '1h',
        ],
        {
          TAS_PRIVATE_KEY: TEST_KEY,
          TAS_RPC_URL: rpc,
        },
      );
      expect(run.code).toBe(1);
      expect(run.stderr).toMatch(/^error: RPC_ERROR: TAS_RPC_URL did not answer eth_chainId: .+\n$/);
      expect(run.stderr).not.toContain('secret-api-key-in-path');
      expect(run.stderr).not.toContain(TEST_KEY.slice(2));
    });

    it('a --private-key flag does not exist', async () => {
      const run = await tas(['order', 'create', '--private-key', TEST_KEY]);
      expect(run.code).toBe(2);
      expect(run.stderr).toMatch(/^error: Unknown option '--private-key'/);
    });
  });

  describe('tables', () => {
    it('align columns, show absent values as -, and escape control characters from the server', () => {
      expect(
        renderTable(
          [
            { id: 'a', note: 'red\u001b[31m text\nnext', list: [] as string[] },
            { id: 'longer', note: null, list: ['x', 'y'] },
          ],
          [
            ['ID', (r) => r.id],
            ['LIST', (r) => r.list],
            ['NOTE', (r) => r.note],
          ],
        ),
      ).toBe(
        ['ID      LIST  NOTE', 'a       -     red\\u001b[31m text\\u000anext', 'longer  x, y  -', ''].join(
          '\n',
        ),
      );
      expect(cellText({ gasUsed: 21000n })).toBe('{"gasUsed":"21000"}');
    });
  });
});
