import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import {
  decodeValueInfo,
  hmacHex,
  signedMessage,
  bodyHashOf,
} from '../../../shared/signing/request-signature';
import { canonicalQuery } from '../../../shared/signing/canonical-query';
import { REPO_ROOT, startApi, type RunningApi } from '../../helpers/api-harness';
import { createStoreTarget, type StoreTarget } from '../../helpers/store-targets';

const run = promisify(execFile);
const SDK = path.join(REPO_ROOT, 'sdk');
const SRC = path.join(SDK, 'src');

/** The names other modules (the CLI, the examples, integrators) import from the package. */
const EXPORTED_VALUES = [
  'AuthenticationError',
  'ConflictError',
  'DCA_STRATEGY_FINAL_STATUSES',
  'DEFAULT_FEE_BUFFER_BPS',
  'DEFAULT_IDLE_TIMEOUT_MS',
  'DEFAULT_RETRY_POLICY',
  'DEFAULT_TIMEOUT_MS',
  'DEFAULT_WEBHOOK_TOLERANCE_SECONDS',
  'GATEWAY_CODES',
  'LIMIT_ORDER_FINAL_STATUSES',
  'MAX_WEBHOOKS_PER_KEY',
  'Maker',
  'NetworkError',
  'NoRouteError',
  'NotFoundError',
  'PollTimeoutError',
  'RateLimitError',
  'SCHEME_TAG',
  'ServerError',
  'SseParser',
  'TRANSFER_FAILURE_STATUSES',
  'TRANSFER_SUCCESS_STATUSES',
  'TasClient',
  'TasError',
  'ValidationError',
  'WEBHOOK_EVENT_TYPES',
  'WEBHOOK_HEADERS',
  'Webhooks',
  'allowanceNeeded',
  'bodyHashOf',
  'buildQuery',
  'canonicalJson',
  'canonicalQuery',
  'computeWebhookSignature',
  'decodeQueryComponent',
  'encodeRfc3986',
  'isRetriable',
  'numberToBaseUnitsCeil',
  'retryKind',
  'signPairAuthorization',
  'signRequest',
  'signedMessage',
  'streamEvents',
  'toBaseUnits',
  'verifyWebhookSignature',
  'waitForOrder',
  'waitForStrategy',
  'waitForTransfer',
];

function filesUnder(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const full = path.join(dir, name);
    return statSync(full).isDirectory() ? filesUnder(full) : [full];
  });
}

/** What the child process prints: run with plain node against the build, as an installed package runs. */
const CHILD = `
const sdk = require(process.argv[1]);
(async () => {
  const credentials = await sdk.TasClient.createAccount(process.argv[2], { name: 'built-sdk', password: 'password-built' });
  const client = new sdk.TasClient({ baseUrl: process.argv[2], credentials });
  const chains = await client.chains();
  const orders = await client.listLimitOrders({ accountTo: 'a b/é', status: 'pending' });
  const signed = sdk.signRequest(credentials, { method: 'PATCH', url: '/api/v1/limit-order/x?b=2&a=1', body: { z: 1, a: 'ü' } });
  let error;
  try { await client.getLimitOrder('nope'); } catch (e) {
    error = { name: e.name, isTasError: e instanceof sdk.TasError, code: e.code, status: e.status };
  }
  process.stdout.write(JSON.stringify({ exports: Object.keys(sdk).sort(), chains, orders, signed, secretKey: credentials.secretKey, error }));
})().catch((e) => { process.stderr.write(String(e && e.stack || e)); process.exit(1); });
`;

describe('the SDK package', () => {
  let outDir: string;
  let madeDist = false;
  let target: StoreTarget;
  let running: RunningApi;

  beforeAll(async () => {
    // Inside sdk/ (dist/ is ignored by git): the build resolves ethers from the repo's node_modules as installed.
    madeDist = !existsSync(path.join(SDK, 'dist'));
    mkdirSync(path.join(SDK, 'dist'), { recursive: true });
    outDir = mkdtempSync(path.join(SDK, 'dist', '.test-build-'));
    target = await createStoreTarget('sqlite');
    running = await startApi(target);
  }, 60_000);
  afterAll(async () => {
    if (outDir) rmSync(outDir, { recursive: true, force: true });
    if (madeDist) rmSync(path.join(SDK, 'dist'), { recursive: true, force: true });
    await running?.close();
    await target?.cleanup();
  });

  it('builds on its own (tsconfig.build.json) to CommonJS with declarations, only from sdk/src', async () => {
    const tsc = require.resolve('typescript/bin/tsc');
    await run(process.execPath, [tsc, '-p', path.join(SDK, 'tsconfig.build.json'), '--outDir', outDir], {
      cwd: REPO_ROOT,
    });
    const built = filesUnder(outDir).map((f) => path.relative(outDir, f));
    expect(built).toContain('index.js');
    expect(built).toContain('index.d.ts');
    expect(built).toContain(path.join('generated', 'api-types.d.ts'));
    // Nothing outside sdk/src was pulled in (it would move the root of the output up a level).
    expect(built.some((f) => f.startsWith('..') || f.includes('shared') || f.includes('api/'))).toBe(false);
    expect(readFileSync(path.join(outDir, 'index.js'), 'utf8')).toContain('require("./client")');
  }, 120_000);

  it('runs from the build in plain node: exports, signed calls to the api, typed errors', async () => {
    expect(existsSync(path.join(outDir, 'index.js'))).toBe(true);
    const { stdout } = await run(
      process.execPath,
      ['-e', CHILD, path.join(outDir, 'index.js'), running.baseUrl],
      {
        cwd: REPO_ROOT,
      },
    );
    const result = JSON.parse(stdout) as {
      exports: string[];
      chains: number[];
      orders: unknown[];
      signed: { headers: Record<string, string>; bodyString: string };
      secretKey: string;
      error: unknown;
    };
    for (const name of EXPORTED_VALUES)
      expect({ name, exported: result.exports.includes(name) }).toEqual({ name, exported: true });
    expect(result.chains).toContain(1);
    expect(result.orders).toEqual([]);
    expect(result.error).toEqual({ name: 'NotFoundError', isTasError: true, code: 'NOT_FOUND', status: 404 });

    // The built signer's headers verify with the server's own pieces.
    const { headers, bodyString } = result.signed;
    expect(bodyString).toBe('{"a":"ü","z":1}');
    const info = decodeValueInfo(headers['x-value-info']!)!;
    expect(info.bodyHash).toBe(bodyHashOf(bodyString));
    expect(headers['x-signature']).toBe(
      hmacHex(
        result.secretKey,
        signedMessage({
          ...info,
          method: 'PATCH',
          path: '/api/v1/limit-order/x',
          query: canonicalQuery('b=2&a=1'),
        }),
      ),
    );
  }, 60_000);

  it('depends on ethers alone and uses nothing a browser lacks (no node: modules, no Buffer)', () => {
    const pkg = JSON.parse(readFileSync(path.join(SDK, 'package.json'), 'utf8')) as {
      dependencies: Record<string, string>;
    };
    expect(Object.keys(pkg.dependencies)).toEqual(['ethers']);
    const sources = filesUnder(SRC).filter((f) => !f.startsWith(path.join(SRC, 'cli') + path.sep));
    expect(sources.length).toBeGreaterThan(10);
    for (const file of sources) {
      const text = readFileSync(file, 'utf8');
      const imports = [...text.matchAll(/from '([^']+)'/g)].map((m) => m[1]!);
      const foreign = imports.filter((spec) => !spec.startsWith('.') && spec !== 'ethers');
      expect({ file, foreign }).toEqual({ file, foreign: [] });
      expect({ file, buffer: /\bBuffer\b|\brequire\(|\bprocess\./.test(text) }).toEqual({
        file,
        buffer: false,
      });
    }
  });
});
