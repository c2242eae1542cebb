import { randomBytes } from 'node:crypto';
import SwaggerParser from '@apidevtools/swagger-parser';
import type { SchemaObject } from 'ajv';
import type { ParameterizedContext } from 'koa';
import { SecretBox } from '../../shared/signing/secret-box';
import { apiDocument, documentationRoutes } from '../../api/openapi';
import { DOCUMENTED_ENDPOINTS, withDocumentedEndpoints } from '../../api/routes/documented-endpoints';
import { quotesEndpoint } from '../../api/routes/quotes/post-quotes';
import {
  buildOpenApiDocument,
  type OpenApiDocument,
  type OpenApiOperation,
} from '../../api/openapi/openapi-document';
import { toOpenApiSchema } from '../../api/openapi/openapi-schema';
import { createAccountBody } from '../../api/routes/accounts/create-account';
import { serviceRoutes } from '../../api/routes';
import { quoteBody } from '../../api/routes/quotes/schemas';
import { supportChainBody } from '../../api/routes/support-chain/support-chain';
import { swapBody } from '../../api/routes/swap/schemas';
import { transactionPathParams, transactionQuery } from '../../api/routes/transactions/schemas';
import { txStatusBody } from '../../api/routes/tx-status/schemas';
import type { ApiState } from '../../api/http/api-state';
import type { HttpMethod, RouteDefinition } from '../../api/http/route-definition';
import { RequestValidator } from '../../api/http/validator';
import { ChainRegistry } from '../../shared/chain/chain-registry';
import { openStore, type Store } from '../../shared/store/store';
import { testConfig } from '../helpers/api-harness';
import { createStoreTarget, type StoreTarget } from '../helpers/store-targets';

/** Every endpoint of the spec's Endpoints section (plus the two documentation routes), in OpenAPI path syntax. */
const SPEC_ENDPOINTS = [
  'POST /accounts',
  'POST /quotes',
  'POST /swap',
  'POST /tx-status',
  'GET /transactions/{hash}',
  'GET /chains',
  'GET /tokens',
  'POST /support-chain',
  'GET /limit-order',
  'POST /limit-order',
  'GET /limit-order/{id}',
  'PATCH /limit-order/{id}',
  'DELETE /limit-order/{id}',
  'GET /dca-order/strategies',
  'POST /dca-order/strategies',
  'GET /dca-order/strategies/{id}',
  'PATCH /dca-order/strategies/{id}',
  'GET /dca-order/strategies/{id}/orders',
  'GET /dca-order/orders/{id}',
  'GET /openapi.json',
  'GET /docs',
];
const PUBLIC_ENDPOINTS = ['POST /accounts', 'GET /openapi.json', 'GET /docs'];
const SIGNING_HEADERS = ['x-api-key-id', 'x-value-info', 'x-passphrase', 'x-signature'];

function operations(document: OpenApiDocument): Array<[string, OpenApiOperation]> {
  return Object.entries(document.paths).flatMap(([path, item]) =>
    Object.entries(item).map(([method, op]): [string, OpenApiOperation] => [
      `${method.toUpperCase()} ${path}`,
      op!,
    ]),
  );
}

function operation(document: OpenApiDocument, key: string): OpenApiOperation {
  const [method, path] = key.split(' ');
  const op = document.paths[path]?.[method.toLowerCase() as Lowercase<HttpMethod>];
  if (!op) throw new Error(`${key} is not in the document`);
  return op;
}

const bodySchemaOf = (op: OpenApiOperation): SchemaObject | undefined =>
  op.requestBody?.content['application/json'].schema;

/** Every key used anywhere in a JSON value, to prove no JSON-Schema-only keyword reached the document. */
function keysIn(value: unknown, into = new Set<string>()): Set<string> {
  if (Array.isArray(value)) value.forEach((v) => keysIn(v, into));
  else if (value && typeof value === 'object') {
    for (const [k, v] of Object.entries(value)) {
      into.add(k);
      keysIn(v, into);
    }
  }
  return into;
}

describe('the OpenAPI document', () => {
  let target: StoreTarget;
  let store: Store;
  let routes: RouteDefinition[];
  let listed: RouteDefinition[];
  let document: OpenApiDocument;

  beforeAll(async () => {
    target = await createStoreTarget('sqlite');
    const config = testConfig(target);
    store = await openStore(config);
    routes = serviceRoutes({
      store,
      chains: new ChainRegistry(config.chains),
      secretBox: new SecretBox(randomBytes(32)),
      validator: new RequestValidator(),
      now: () => Date.now(),
    });
    listed = routes.filter((r) => !r.path.startsWith('/docs/assets/'));
    document = apiDocument(listed);
  });
  afterAll(async () => {
    await store?.close();
    await target?.cleanup();
  });

  it('is a valid OpenAPI 3.0.3 document', async () => {
    // The parser dereferences in place: hand it a copy.
    const copy = structuredClone(document) as unknown as Parameters<typeof SwaggerParser.validate>[0];
    await expect(SwaggerParser.validate(copy)).resolves.toBeDefined();
    expect(document.openapi).toBe('3.0.3');
    expect(document.info.version).toBe('1.0.0');
    expect(document.info.title).toBe('Trade Aggregation Service API');
    expect(document.info.description).toContain('SVC-HMAC-SHA256-V2');
    expect(document.servers).toEqual([{ url: '/api/v1' }]);
  });

  it('has unique operation IDs and declares every path template parameter as a required path parameter', () => {
    const ids = operations(document).map(([, op]) => op.operationId);
    expect(new Set(ids).size).toBe(ids.length);
    for (const [key, op] of operations(document)) {
      const templateParams = [...key.matchAll(/\{([^}]+)\}/g)].map((m) => m[1]).sort();
      const pathParams = (op.parameters ?? []).filter((p) => p.in === 'path');
      expect({ key, params: pathParams.map((p) => p.name).sort() }).toEqual({ key, params: templateParams });
      for (const p of pathParams) expect(p.required).toBe(true);
    }
  });

  it('lists every endpoint of the spec', () => {
    const present = operations(document).map(([key]) => key);
    for (const endpoint of SPEC_ENDPOINTS) expect(present).toContain(endpoint);
  });

  it('does not list the docs page assets', () => {
    expect(routes.some((r) => r.path === '/docs/assets/swagger-ui-bundle.js')).toBe(true);
    expect(Object.keys(document.paths).filter((p) => p.startsWith('/docs/'))).toEqual([]);
  });

  it('requires the four signing headers together on signed routes and nothing on public ones', () => {
    expect(document.components.securitySchemes).toEqual(
      Object.fromEntries(
        SIGNING_HEADERS.map((name) => [
          name,
          expect.objectContaining({ type: 'apiKey', in: 'header', name }),
        ]),
      ),
    );
    for (const [key, op] of operations(document)) {
      if (PUBLIC_ENDPOINTS.includes(key)) {
        expect({ key, security: op.security }).toEqual({ key, security: [] });
        expect({ key, gateway401: op.responses['401'] }).toEqual({ key, gateway401: undefined });
      } else {
        // One requirement object naming all four: they are required together.
        expect({ key, security: op.security }).toEqual({
          key,
          security: [Object.fromEntries(SIGNING_HEADERS.map((h) => [h, []]))],
        });
        expect(op.responses['401'].content?.['application/json'].schema).toEqual({
          $ref: '#/components/schemas/GatewayError',
        });
      }
    }
    for (const key of PUBLIC_ENDPOINTS) expect(operation(document, key).security).toEqual([]);
  });

  it('shows the very schema objects the validator runs as request bodies', () => {
    expect(bodySchemaOf(operation(document, 'POST /accounts'))).toBe(createAccountBody);
    expect(bodySchemaOf(operation(document, 'POST /support-chain'))).toBe(supportChainBody);
    expect(bodySchemaOf(operation(document, 'POST /quotes'))).toBe(quoteBody);
    expect(bodySchemaOf(operation(document, 'POST /swap'))).toBe(swapBody);
    expect(bodySchemaOf(operation(document, 'POST /tx-status'))).toBe(txStatusBody);
    // And every served route with a body, whoever wrote it.
    for (const route of listed.filter((r) => r.body)) {
      const key = `${route.method} ${route.path.replace(/:([A-Za-z0-9_]+)/g, '{$1}')}`;
      expect({ key, same: bodySchemaOf(operation(document, key)) === route.body }).toEqual({
        key,
        same: true,
      });
    }
  });

  it('wraps `data` in the success envelope and keeps the route’s own response schema', () => {
    const chains = routes.find((r) => r.path === '/chains')!;
    const ok = operation(document, 'GET /chains').responses['200'];
    const envelope = ok.content!['application/json'].schema;
    expect(envelope.required).toEqual(['success', 'data', 'meta']);
    expect(envelope.properties.data).toBe(chains.doc.response);
    expect(envelope.properties.meta).toEqual({ $ref: '#/components/schemas/Meta' });
    expect(ok.headers).toEqual({ RequestId: { $ref: '#/components/headers/RequestId' } });
  });

  it('documents enveloped errors and the gateway answers per status', () => {
    const tokens = operation(document, 'GET /tokens').responses;
    expect(Object.keys(tokens).sort()).toEqual(['200', '400', '401', '403', '429', '500', '503']);
    expect(tokens['400'].content!['application/json'].schema).toEqual({
      $ref: '#/components/schemas/ErrorEnvelope',
    });
    // 403 and 500 come from either layer.
    expect(tokens['403'].content!['application/json'].schema).toEqual({
      oneOf: [{ $ref: '#/components/schemas/ErrorEnvelope' }, { $ref: '#/components/schemas/GatewayError' }],
    });
    expect(tokens['429'].headers['Retry-After']).toEqual({ $ref: '#/components/headers/RetryAfter' });

    const accounts = operation(document, 'POST /accounts').responses;
    expect(Object.keys(accounts).sort()).toEqual(['200', '400', '413', '429', '500', '503']);

    const spec = operation(document, 'GET /openapi.json').responses;
    expect(Object.keys(spec).sort()).toEqual(['200', '429', '500', '503']);
    expect(Object.keys(spec['200'].content!)).toEqual(['application/json']);
    expect(spec['200'].content!['application/json'].schema.properties).toBeUndefined();
    expect(Object.keys(operation(document, 'GET /docs').responses['200'].content!)).toEqual(['text/html']);
  });

  it('documents the parameters of GET /transactions/{hash}', () => {
    const op = operation(document, 'GET /transactions/{hash}');
    expect(op.parameters?.map((p) => [p.name, p.in, p.required])).toEqual([
      ['hash', 'path', true],
      ['chainId', 'query', true],
    ]);
    expect(op.requestBody).toBeUndefined();
  });

  it('lists a documented endpoint once, and as served, once a route serves it', () => {
    const served: RouteDefinition = { ...quotesEndpoint, doc: { ...quotesEndpoint.doc, summary: 'served' } };
    const renamed: RouteDefinition = {
      method: 'GET',
      path: '/transactions/:txHash',
      auth: 'signed',
      doc: { tag: 'x', summary: 'served tx' },
    };
    const all = withDocumentedEndpoints([served, renamed]);
    expect(all.filter((r) => r.path === '/quotes')).toEqual([served]);
    expect(all.filter((r) => r.path.startsWith('/transactions/'))).toEqual([renamed]);
    expect(all).toHaveLength(DOCUMENTED_ENDPOINTS.length);
    const doc = buildOpenApiDocument(all);
    expect(doc.paths['/quotes'].post?.summary).toBe('served');
    expect(Object.keys(doc.paths).filter((p) => p.startsWith('/transactions/'))).toEqual([
      '/transactions/{txHash}',
    ]);
  });

  /** Runs a raw route on a minimal context: the fields a raw handler sets. */
  async function runRaw(route: RouteDefinition): Promise<{ status: number; type: string; body: string }> {
    const ctx = {
      status: 404,
      type: '',
      body: undefined as unknown,
      query: {},
      fresh: false,
      set: () => undefined,
    };
    await route.raw!(ctx as unknown as ParameterizedContext<ApiState>);
    return { status: ctx.status, type: ctx.type, body: String(ctx.body) };
  }

  it('serves exactly this document at GET /openapi.json, built from the served routes', async () => {
    const served = await runRaw(routes.find((r) => r.path === '/openapi.json')!);
    expect(served.status).toBe(200);
    expect(served.type).toBe('application/json; charset=utf-8');
    expect(JSON.parse(served.body)).toEqual(JSON.parse(JSON.stringify(document)));
    // Another app over the same routes serves the same bytes.
    const others = documentationRoutes(routes.filter((r) => r.doc.tag !== 'Documentation'));
    expect((await runRaw(others.find((r) => r.path === '/openapi.json')!)).body).toBe(served.body);
    expect(others.map((r) => `${r.method} ${r.path}`)).toEqual([
      'GET /openapi.json',
      'GET /docs',
      'GET /docs/assets/swagger-ui.css',
      'GET /docs/assets/index.css',
      'GET /docs/assets/swagger-ui-bundle.js',
      'GET /docs/assets/swagger-ui-standalone-preset.js',
      'GET /docs/assets/favicon-32x32.png',
      'GET /docs/assets/favicon-16x16.png',
      'GET /docs/assets/docs-page.css',
      'GET /docs/assets/docs-signing.js',
      'GET /docs/assets/docs-init.js',
    ]);
  });

  it('carries no keyword OpenAPI 3.0 does not know', () => {
    const keys = keysIn(document);
    for (const keyword of [
      '$id',
      '$schema',
      'const',
      'if',
      'then',
      'else',
      '$defs',
      'examples',
      'prefixItems',
    ]) {
      expect({ keyword, present: keys.has(keyword) }).toEqual({ keyword, present: false });
    }
  });
});

describe('toOpenApiSchema', () => {
  it('returns an OpenAPI 3.0 schema unchanged, as the same object', () => {
    const schema: SchemaObject = {
      type: 'object',
      properties: {
        a: { type: 'string', format: 'evm-address' },
        b: { type: 'array', items: { type: 'integer' } },
      },
    };
    expect(toOpenApiSchema(schema)).toBe(schema);
    expect(toOpenApiSchema(quoteBody)).toBe(quoteBody);
  });

  it('strips unknown keywords and rewrites their 3.0 equivalents, copying only what changes', () => {
    const untouched = { type: 'string', format: 'decimal' };
    const schema: SchemaObject = {
      $id: 'urn:x',
      $schema: 'http://json-schema.org/draft-07/schema#',
      type: 'object',
      properties: {
        kind: { const: 'x' },
        size: { type: 'number', exclusiveMinimum: 0 },
        note: { type: ['string', 'null'], examples: ['hi'] },
        untouched,
      },
      oneOf: [{ type: 'object', if: { required: ['kind'] }, then: { required: ['size'] } }],
    };
    expect(toOpenApiSchema(schema)).toEqual({
      type: 'object',
      properties: {
        kind: { enum: ['x'] },
        size: { type: 'number', minimum: 0, exclusiveMinimum: true },
        note: { type: 'string', nullable: true, example: 'hi' },
        untouched,
      },
      oneOf: [{ type: 'object' }],
    });
    expect(toOpenApiSchema(schema).properties.untouched).toBe(untouched);
    expect(schema.$id).toBe('urn:x');
  });
});

describe('the request schemas of the documented endpoints', () => {
  const validator = new RequestValidator();
  const token = '0x' + 'a'.repeat(40);
  const other = '0x' + 'b'.repeat(40);
  const single = {
    mode: 'single-chain',
    params: {
      chainId: 137,
      inTokenAddress: token,
      outTokenAddress: other,
      amount: '10',
      gasPrice: '30',
      slippage: '0.5',
    },
  };
  const cross = {
    mode: 'cross-chain',
    params: {
      fromChainId: 1,
      toChainId: 137,
      inTokenAddress: token,
      outTokenAddress: other,
      amount: '1.5',
      slippage: '1',
    },
  };
  const swapExtra = { account: '0x' + 'c'.repeat(40), aggregatorId: 'source-a' };
  const ok = (schema: SchemaObject, value: unknown): boolean =>
    validator.check(schema, value, 'body').length === 0;

  it('compile in the request validator (strict ajv)', () => {
    for (const route of DOCUMENTED_ENDPOINTS.filter((r) => r.body))
      expect(() => validator.check(route.body!, {}, 'body')).not.toThrow();
    expect(() => validator.check(transactionPathParams, {}, 'params')).not.toThrow();
    expect(() => validator.check(transactionQuery, {}, 'query')).not.toThrow();
  });

  it('accept both quote modes, with and without fees', () => {
    expect(ok(quoteBody, single)).toBe(true);
    expect(ok(quoteBody, cross)).toBe(true);
    expect(ok(quoteBody, { ...single, fees: { feeBps: 25, feeRecipient: other } })).toBe(true);
    expect(
      ok(quoteBody, {
        ...single,
        params: {
          ...single.params,
          includeGasInfo: true,
          gasMultiplier: 'HIGH',
          orderBy: 'MAX_OUT_AMOUNT',
          excludeMetaAggregatorId: ['x'],
        },
      }),
    ).toBe(true);
  });

  it('reject what the spec rejects on quotes', () => {
    expect(ok(quoteBody, { ...cross, extra: 1 })).toBe(false);
    expect(ok(quoteBody, { ...cross, params: { ...cross.params, gasPrice: '3' } })).toBe(false);
    expect(ok(quoteBody, { ...single, mode: 'SINGLE-CHAIN' })).toBe(false);
    expect(ok(quoteBody, { ...single, params: { ...single.params, chainId: '137' } })).toBe(false);
    expect(ok(quoteBody, { ...single, params: { ...single.params, amount: 10 } })).toBe(false);
    expect(ok(quoteBody, { ...single, params: { ...single.params, gasMultiplier: 'EXTREME' } })).toBe(false);
    expect(ok(quoteBody, { ...single, fees: { feeBps: 101, feeRecipient: other } })).toBe(false);
    expect(ok(quoteBody, { ...single, fees: { feeBps: 10, feeRecipient: '0x' + '0'.repeat(40) } })).toBe(
      false,
    );
    expect(ok(quoteBody, { ...single, fees: { feeBps: 1.5, feeRecipient: other } })).toBe(false);
  });

  it('report only the errors of the mode a body names, and a missing or unknown mode on its own', () => {
    const badSingle = {
      ...single,
      params: { ...single.params, amount: 1.5, gasPrice: '30.5', outTokenAddress: '0xAbC' },
    };
    expect(validator.check(quoteBody, badSingle, 'body')).toEqual([
      { field: 'params.outTokenAddress', message: 'Must be a valid EVM address' },
      { field: 'params.amount', message: 'Must be a string' },
      { field: 'params.gasPrice', message: 'Must be a whole number written as a string, such as "30"' },
    ]);
    expect(validator.check(swapBody, single, 'body')).toEqual([
      { field: 'params.account', message: 'Is required' },
      { field: 'params.aggregatorId', message: 'Is required' },
    ]);
    expect(
      validator.check(quoteBody, { ...cross, params: { ...cross.params, gasPrice: '3' } }, 'body'),
    ).toEqual([{ field: 'params.gasPrice', message: 'Is not allowed' }]);
    const modeless: Record<string, unknown> = { ...single };
    delete modeless.mode;
    for (const schema of [quoteBody, swapBody]) {
      expect(validator.check(schema, modeless, 'body')).toEqual([{ field: 'mode', message: 'Is required' }]);
      expect(validator.check(schema, { ...single, mode: 'SINGLE-CHAIN' }, 'body')).toEqual([
        { field: 'mode', message: 'Must be one of: single-chain, cross-chain' },
      ]);
      expect(validator.check(schema, { ...single, mode: 7 }, 'body')).toEqual([
        { field: 'mode', message: 'Must be one of: single-chain, cross-chain' },
      ]);
    }
  });

  it('accept dryRun on a single-chain swap only', () => {
    const singleSwap = { ...single, params: { ...single.params, ...swapExtra } };
    const crossSwap = { ...cross, params: { ...cross.params, ...swapExtra } };
    expect(ok(swapBody, singleSwap)).toBe(true);
    expect(ok(swapBody, { ...singleSwap, params: { ...singleSwap.params, dryRun: true } })).toBe(true);
    expect(ok(swapBody, crossSwap)).toBe(true);
    expect(ok(swapBody, { ...crossSwap, params: { ...crossSwap.params, dryRun: true } })).toBe(false);
    expect(ok(swapBody, { ...crossSwap, dryRun: true })).toBe(false);
    expect(ok(swapBody, single)).toBe(false);
  });

  it('list each missing tx-status field', () => {
    expect(validator.check(txStatusBody, {}, 'body')).toEqual([
      { field: 'hash', message: 'Is required' },
      { field: 'chainId', message: 'Is required' },
      { field: 'dexHash', message: 'Is required' },
    ]);
    expect(ok(txStatusBody, { hash: '0x' + 'f'.repeat(64), chainId: 1, dexHash: '0xabc' })).toBe(true);
  });

  it('check a transaction hash and its chainId', () => {
    expect(validator.check(transactionPathParams, { hash: '0x123' }, 'params')).toEqual([
      { field: 'hash', message: 'Must be a 0x-prefixed 32-byte hex hash' },
    ]);
    expect(ok(transactionPathParams, { hash: '0x' + '1'.repeat(64) })).toBe(true);
    expect(ok(transactionQuery, { chainId: '137' })).toBe(true);
    expect(ok(transactionQuery, { chainId: 'abc' })).toBe(false);
  });
});
