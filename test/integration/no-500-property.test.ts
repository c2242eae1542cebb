import { createHash, randomBytes, randomUUID } from 'node:crypto';
import fc from 'fast-check';
import { canonicalJson } from '../../shared/signing/canonical-json';
import {
  encodeValueInfo,
  hmacHex,
  signedMessage,
  type Credentials,
} from '../../shared/signing/request-signature';
import { limitOrderBody } from '../factories/limit-orders';
import { referencePrice } from '../factories/reference-prices';
import { newAccountClient, rawRequest, type ApiClient } from '../helpers/api-client';
import { startApiOn } from '../helpers/api-harness';
import { describeEachStore } from '../helpers/store-targets';
import { breaksTradeBounds, tradeBody, type TradeWorld } from '../helpers/trade-bodies';

const RUNS_PER_ROUTE = 150;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** Field names the routes know, so generated objects reach past the first type check. */
const FIELDS = [
  'name',
  'password',
  'chainId',
  'priceTrigger',
  'price',
  'amount',
  'expired',
  'slippage',
  'gasPrice',
  'status',
  'txHash',
  'accountTo',
  'inTokenAddress',
  'signature',
  '__proto__',
  'constructor',
];

/** Values near the edges of what the routes accept. */
const edgeValue = fc.oneof(
  fc.constantFrom<unknown>(
    '',
    '0',
    '1',
    '0.5',
    '-1',
    '1e5',
    '0x',
    'abc',
    'pending',
    'cancelled',
    137,
    1,
    0,
    -1,
    1.5,
    9007199254740991,
    1e300,
    null,
    true,
    [],
    {},
    'x'.repeat(300),
    '9'.repeat(120),
    `0x${'e'.repeat(40)}`,
    '0xC02aaA39b223FE8D0A0e5C4F27eAD9083C756Cc2',
  ),
  fc.integer().map(String),
  fc.double({ noNaN: true, noDefaultInfinity: true }),
  fc.constant(null).map(() => String(Date.now() + 86_400_000)),
  fc.jsonValue({ maxDepth: 2 }),
);

const shapedObject = fc.dictionary(fc.constantFrom(...FIELDS), edgeValue, { maxKeys: 6 });
const jsonBody = fc.oneof(fc.jsonValue(), fc.jsonValue({ stringUnit: 'binary' }), shapedObject, shapedObject);

/** Bytes that are not (or not quite) canonical JSON. */
const byteBody = fc.oneof(
  fc.uint8Array({ maxLength: 200 }).map((b) => Buffer.from(b)),
  fc.string({ unit: 'binary', maxLength: 100 }).map((s) => Buffer.from(s, 'utf8')),
  fc.tuple(shapedObject, fc.nat()).map(([o, cut]) => {
    const text = JSON.stringify(o);
    return Buffer.from(text.slice(0, cut % (text.length + 1)), 'utf8');
  }),
  fc
    .constantFrom(
      '{"chainId":1e400}',
      '{"chainId":-1e400}',
      '[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]',
      '\ufeff{"chainId":1}',
      '{"chainId":1,"chainId":"1"}',
      '{"__proto__":{"x":1},"chainId":1}',
      '"\\ud800"',
      'null',
      '',
      ' ',
    )
    .map((s) => Buffer.from(s, 'utf8')),
);

type Mode = 'unsigned' | 'signed' | 'signed-wrong-hash' | 'signed-other-type' | 'signed-no-type';
const mode = fc.constantFrom<Mode>(
  'unsigned',
  'signed',
  'signed',
  'signed-wrong-hash',
  'signed-other-type',
  'signed-no-type',
);
const contentType = fc.constantFrom<string | undefined>(
  'application/json',
  'application/json; charset=utf-8',
  'text/plain',
  'application/x-www-form-urlencoded',
  undefined,
);

const decimal = fc.oneof(fc.stringMatching(/^\d{1,4}(\.\d{1,20})?$/), edgeValue);
const future = fc.integer({ min: -1000, max: 400 }).map((days) => String(Date.now() + days * 86_400_000));

/** Bodies close to valid for each route, so the runs reach the handlers and not only the schema. */
const nearlyValid = {
  accounts: fc.record(
    {
      name: fc.oneof(fc.string({ minLength: 6, maxLength: 12 }), edgeValue),
      password: fc.oneof(fc.string({ minLength: 8, maxLength: 12 }), edgeValue),
      extra: edgeValue,
    },
    { requiredKeys: [] },
  ),
  supportChain: fc.record(
    {
      chainId: fc.oneof(fc.integer(), fc.constantFrom(1, 137, 8453, 9007199254740991), edgeValue),
      extra: edgeValue,
    },
    { requiredKeys: [] },
  ),
  patchOrder: fc.oneof(
    // Only changeable fields with good values: these reach the store (200, or 404 for an unknown id).
    fc.record(
      {
        priceTrigger: fc.stringMatching(/^[1-9]\d{0,3}(\.\d{1,6})?$/),
        price: fc.stringMatching(/^[1-9]\d{0,3}(\.\d{1,6})?$/),
        amount: fc.stringMatching(/^[1-9](\.\d{1,6})?$/),
        expired: fc.integer({ min: 1, max: 300 }).map((days) => String(Date.now() + days * 86_400_000)),
        slippage: fc.stringMatching(/^[0-9](\.\d{1,2})?$/),
        gasPrice: fc.stringMatching(/^\d{1,3}(\.\d{1,3})?$/),
      },
      { requiredKeys: [] },
    ),
    fc.record(
      {
        priceTrigger: decimal,
        price: decimal,
        amount: decimal,
        expired: fc.oneof(future, edgeValue),
        slippage: decimal,
        gasPrice: decimal,
        status: edgeValue,
        chainId: edgeValue,
      },
      { requiredKeys: [] },
    ),
  ),
};

/**
 * Chain 1 of the repo's chains file with its listed tokens: enabled, not tradable here (no contracts), so a body
 * that passes every check answers 422 NO_ROUTE; test/e2e/trade-input-bounds.test.ts runs the same bodies on a
 * devnet chain, through routing and calldata building.
 */
const CHAIN1_WORLD: TradeWorld = {
  chainId: 1,
  otherChainId: 137,
  tokens: [
    { address: '0xC02aaA39b223FE8D0A0e5C4F27eAD9083C756Cc2', decimals: 18 },
    { address: '0xA0b86991c6218b36c1d19D4a2e9Eb0cE3606eB48', decimals: 6 },
    { address: '0x2260FAC5E5542a773Aa44fBCfeDf7C193bc2C599', decimals: 8 },
  ],
  aggregatorIds: ['uniswap-v2', 'uniswap-v3', 'tas-smart'],
};

function bodyOf(shaped: fc.Arbitrary<unknown>): fc.Arbitrary<Buffer> {
  const value = fc.oneof(jsonBody, shaped, shaped);
  return fc.oneof(
    value.map((v) => Buffer.from(canonicalJson(v), 'utf8')),
    value.map((v) => Buffer.from(JSON.stringify(v) ?? 'null', 'utf8')),
    byteBody,
  );
}

function headersFor(
  credentials: Credentials,
  method: string,
  path: string,
  bytes: Buffer,
  m: Mode,
  type: string | undefined,
): Record<string, string> {
  const typeHeader: Record<string, string> = type === undefined ? {} : { 'content-type': type };
  if (m === 'unsigned') return typeHeader;
  const timestamp = String(Math.floor(Date.now() / 1000));
  const nonce = randomBytes(12).toString('hex');
  // The hash of the bytes as sent: equal to the canonical hash when the bytes are canonical JSON.
  const hashed = m === 'signed-wrong-hash' ? Buffer.concat([bytes, Buffer.from(' ')]) : bytes;
  const bodyHash = createHash('sha256').update(hashed).digest('base64url');
  const signature = hmacHex(
    credentials.secretKey,
    signedMessage({ timestamp, nonce, method, path, query: '', bodyHash }),
  );
  const signing = {
    'x-api-key-id': credentials.apiKey,
    'x-value-info': encodeValueInfo(timestamp, nonce, bodyHash),
    'x-passphrase': credentials.passphrase,
    'x-signature': signature,
  };
  if (m === 'signed-no-type') return signing;
  if (m === 'signed-other-type') return { ...signing, 'content-type': 'text/plain' };
  return { ...signing, 'content-type': type ?? 'application/json' };
}

describeEachStore('no body makes a 500', (kind) => {
  let running: Awaited<ReturnType<typeof startApiOn>>;
  let client: ApiClient;
  let orderId: string;

  beforeAll(async () => {
    running = await startApiOn(kind);
    client = await newAccountClient(running.baseUrl, 'property-tester');
    await running.store.referencePrices.upsert([referencePrice()]);
    const created = await client.post<{ id: string }>('/limit-order', limitOrderBody());
    if (created.status !== 200 || !created.body.data)
      throw new Error(`order creation failed: ${created.text}`);
    orderId = created.body.data.id;
  });
  afterAll(async () => running?.close());

  /** The runs must reach every layer: refused at the gateway, by the body checks and by the schema. */
  function expectCoverage(route: string, mustSee: number[], allowed = [200, 400, 401, 403, 404, 409]): void {
    const statuses = [...(seen.get(route) ?? [])];
    expect(statuses.filter((s) => !allowed.includes(s))).toEqual([]);
    expect(statuses).toEqual(expect.arrayContaining(mustSee));
  }

  const seen = new Map<string, Set<number>>();

  async function expectNo500(method: string, path: string, bytes: Buffer, m: Mode, type: string | undefined) {
    await statusWithout500(method, path, bytes, m, type);
  }

  /** Sends the request, checks the answer is no 500 and in a documented shape, and returns its status. */
  async function statusWithout500(
    method: string,
    path: string,
    bytes: Buffer,
    m: Mode,
    type: string | undefined,
  ): Promise<number> {
    const headers = headersFor(client.credentials, method, `/api/v1${path}`, bytes, m, type);
    const res = await rawRequest<Record<string, unknown>>(running.baseUrl, method, path, {
      headers,
      body: bytes.length ? bytes : undefined,
    });
    const route = path.startsWith('/limit-order/') ? 'PATCH /limit-order' : `${method} ${path}`;
    seen.set(route, (seen.get(route) ?? new Set()).add(res.status));
    const context = `${method} ${path} ${m} ${type} ${JSON.stringify(bytes.toString('utf8'))} -> ${res.status} ${res.text}`;
    expect({ context, ok: res.status < 500 }).toEqual({ context, ok: true });
    // Every answer is one of the two documented shapes, with the request id.
    const requestId = res.headers.get('apigw-requestid');
    expect(requestId).toMatch(UUID);
    if (res.body && 'success' in res.body) {
      expect((res.body.meta as { requestId: string }).requestId).toBe(requestId);
    } else {
      expect(Object.keys(res.body ?? {})).toEqual(['message']);
    }
    return res.status;
  }

  it('POST /accounts', async () => {
    await fc.assert(
      fc.asyncProperty(bodyOf(nearlyValid.accounts), mode, contentType, (bytes, m, type) =>
        expectNo500('POST', '/accounts', bytes, m, type),
      ),
      { numRuns: RUNS_PER_ROUTE },
    );
    expectCoverage('POST /accounts', [400]);
  });

  it('POST /support-chain', async () => {
    await fc.assert(
      fc.asyncProperty(bodyOf(nearlyValid.supportChain), mode, contentType, (bytes, m, type) =>
        expectNo500('POST', '/support-chain', bytes, m, type),
      ),
      { numRuns: RUNS_PER_ROUTE },
    );
    expectCoverage('POST /support-chain', [400, 401, 403]);
  });

  it('PATCH /limit-order/<uuid>, for an existing pending order and an unknown id', async () => {
    await fc.assert(
      fc.asyncProperty(
        bodyOf(nearlyValid.patchOrder),
        mode,
        contentType,
        fc.boolean(),
        (bytes, m, type, existing) =>
          expectNo500('PATCH', `/limit-order/${existing ? orderId : randomUUID()}`, bytes, m, type),
      ),
      { numRuns: RUNS_PER_ROUTE },
    );
    expectCoverage('PATCH /limit-order', [400, 401, 403]);
  });

  it.each([
    ['/quotes', false],
    ['/swap', true],
  ])('POST %s, with absurd amounts, slippages, fees and addresses', async (path, swap) => {
    const trade = tradeBody(CHAIN1_WORLD, swap);
    let refused = 0;
    // Mostly well-signed JSON, so the bodies reach the schema and the handler's amount checks; those that break
    // a bound must be refused with 400, not passed on to routing.
    const request = fc.oneof(
      { arbitrary: trade.map((body) => ({ signed: true as const, body })), weight: 3 },
      {
        arbitrary: fc
          .tuple(bodyOf(trade), mode, contentType)
          .map(([bytes, m, type]) => ({ signed: false as const, bytes, m, type })),
        weight: 1,
      },
    );
    await fc.assert(
      fc.asyncProperty(request, async (r) => {
        if (!r.signed) {
          await expectNo500('POST', path, r.bytes, r.m, r.type);
          return;
        }
        const bytes = Buffer.from(canonicalJson(r.body), 'utf8');
        const status = await statusWithout500('POST', path, bytes, 'signed', 'application/json');
        if (breaksTradeBounds(CHAIN1_WORLD, r.body)) {
          refused += 1;
          expect({ body: r.body, status }).toEqual({ body: r.body, status: 400 });
        }
      }),
      { numRuns: RUNS_PER_ROUTE },
    );
    expect(refused).toBeGreaterThanOrEqual(10);
    expectCoverage(`POST ${path}`, [400, 401, 403, 422], [400, 401, 403, 422]);
  });
});
