import Ajv, { type ErrorObject } from 'ajv';
import { childPath, fieldPath } from './field-path';
import { ScenarioError } from './scenario-error';
import { scenarioProblems } from './scenario-rules';
import type { Scenario } from './scenario-types';

export const MAX_BLOCKS = 100_000;
/** Seeds feed pure-rand's 32-bit seeding; a larger value would silently alias a smaller one. */
export const MAX_SEED = 4_294_967_295;

/** A decimal string with a non-zero digit somewhere: greater than 0, no sign, no exponent. */
const POSITIVE_DECIMAL = '^(?=.*[1-9])(0|[1-9][0-9]*)(\\.[0-9]+)?$';
/** At least 0 and below 100, as the API takes a limit order's slippage. */
const PERCENT_DECIMAL = '^(0|[1-9][0-9]?)(\\.[0-9]+)?$';
const PAIR = '^[^/\\s]+/[^/\\s]+$';

/** ajv would print the regular expression; the author needs to know what to write instead. */
const PATTERN_MESSAGES: Readonly<Record<string, string>> = {
  [POSITIVE_DECIMAL]: 'must be a decimal string greater than 0, e.g. "0.5"',
  [PERCENT_DECIMAL]: 'must be a decimal string of a percent from 0 to below 100, e.g. "0.5"',
  [PAIR]: 'must be "BASE/QUOTE" by token symbol, e.g. "WETH/USDC"',
};

// The API's columns hold 100 characters for decimals and 64 for symbols.
const positiveDecimal = { type: 'string', pattern: POSITIVE_DECIMAL, maxLength: 100 } as const;
const symbol = { type: 'string', minLength: 1, maxLength: 64 } as const;
const chainId = { type: 'integer', minimum: 1 } as const;
const block = { type: 'integer', minimum: 0, maximum: MAX_BLOCKS } as const;
const seed = { type: 'integer', minimum: 0, maximum: MAX_SEED } as const;
const groupSize = { type: 'integer', minimum: 1, maximum: 10_000 } as const;
const positiveNumber = { type: 'number', exclusiveMinimum: 0 } as const;

const pointsPath = {
  type: 'object',
  additionalProperties: false,
  required: ['kind', 'points'],
  properties: {
    kind: { const: 'points' },
    points: {
      type: 'array',
      minItems: 2,
      items: { type: 'array', minItems: 2, maxItems: 2, items: [block, positiveNumber] },
    },
  },
} as const;

const gbmPath = {
  type: 'object',
  additionalProperties: false,
  required: ['kind', 'start', 'drift', 'volatility'],
  properties: {
    kind: { const: 'gbm' },
    start: positiveNumber,
    // Annualized; beyond ±1000 % a year the path leaves what a double holds within a long run.
    drift: { type: 'number', minimum: -10, maximum: 10 },
    volatility: { type: 'number', minimum: 0, maximum: 10 },
    seed,
  },
} as const;

const csvPath = {
  type: 'object',
  additionalProperties: false,
  required: ['kind', 'file'],
  properties: { kind: { const: 'csv' }, file: { type: 'string', minLength: 1 } },
} as const;

const triggerRange = {
  type: 'object',
  additionalProperties: false,
  required: ['from', 'to'],
  properties: { from: positiveDecimal, to: positiveDecimal },
} as const;

const limitOrderGroup = {
  type: 'object',
  additionalProperties: false,
  required: ['chainId', 'sell', 'buy', 'amount', 'trigger'],
  properties: {
    chainId,
    sell: symbol,
    buy: symbol,
    amount: positiveDecimal,
    // if/then/else rather than oneOf: only the errors of the shape the author chose are reported.
    trigger: {
      type: ['string', 'object'],
      if: { type: 'string' },
      then: positiveDecimal,
      else: triggerRange,
    },
    count: { ...groupSize, default: 1 },
    makers: { ...groupSize, default: 1 },
    atBlock: { ...block, default: 0 },
    expiresAfterBlocks: { type: 'integer', minimum: 1 },
    slippage: { type: 'string', pattern: PERCENT_DECIMAL, default: '1' },
  },
} as const;

const dcaGroup = {
  type: 'object',
  additionalProperties: false,
  required: ['chainId', 'sell', 'buy', 'totalAmount', 'iterations', 'everyBlocks'],
  properties: {
    chainId,
    sell: symbol,
    buy: symbol,
    totalAmount: positiveNumber,
    iterations: { type: 'integer', minimum: 1, maximum: 1000 },
    everyBlocks: { type: 'integer', minimum: 1, maximum: MAX_BLOCKS },
    atBlock: { ...block, default: 0 },
    count: { ...groupSize, default: 1 },
    slippage: { type: 'number', minimum: 0, exclusiveMaximum: 100, default: 1 },
    minPrice: positiveNumber,
    maxPrice: positiveNumber,
  },
} as const;

/** The JSON schema of a scenario file; defaults are filled in as scenario-types.ts documents them. */
export const scenarioSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['name', 'chains', 'blockTimeSeconds', 'blocks', 'markets'],
  properties: {
    name: { type: 'string', minLength: 1, maxLength: 200 },
    description: { type: 'string' },
    chains: { type: 'array', minItems: 1, items: chainId },
    blockTimeSeconds: { type: 'integer', minimum: 1, maximum: 86_400 },
    blocks: { type: 'integer', minimum: 1, maximum: MAX_BLOCKS },
    seed: { ...seed, default: 1 },
    markets: {
      type: 'array',
      minItems: 1,
      items: {
        type: 'object',
        additionalProperties: false,
        required: ['chainId', 'pair', 'path'],
        properties: {
          chainId,
          pair: { type: 'string', pattern: PAIR, maxLength: 129 },
          path: {
            type: 'object',
            required: ['kind'],
            discriminator: { propertyName: 'kind' },
            oneOf: [pointsPath, gbmPath, csvPath],
          },
        },
      },
    },
    limitOrders: { type: 'array', items: limitOrderGroup, default: [] },
    dca: { type: 'array', items: dcaGroup, default: [] },
  },
} as const;

const ajv = new Ajv({
  allErrors: true,
  useDefaults: true,
  // NaN and Infinity are not prices (a scenario built in code could hold them; JSON cannot).
  strictNumbers: true,
  discriminator: true,
  allowUnionTypes: true,
});
const validate = ajv.compile<Scenario>(scenarioSchema);

/** One ajv error as "field: problem", or null for the summary errors that only repeat a nested one. */
function describe(error: ErrorObject): string | null {
  const at = fieldPath(error.instancePath);
  const params = error.params as Record<string, unknown>;
  switch (error.keyword) {
    case 'if':
    case 'oneOf':
      return null;
    case 'required':
      return `${childPath(at, String(params.missingProperty))}: is required`;
    case 'additionalProperties':
      return `${childPath(at, String(params.additionalProperty))}: is not a known field`;
    case 'discriminator':
      // A missing kind is already reported as required.
      if (params.tagValue === undefined) return null;
      return `${childPath(at, 'kind')}: must be one of "points", "gbm", "csv"`;
    case 'pattern':
      return `${at}: ${PATTERN_MESSAGES[String(params.pattern)] ?? error.message}`;
    case 'type':
      return Array.isArray(params.type)
        ? `${at}: must be ${params.type.join(' or ')}`
        : `${at}: ${error.message}`;
    case 'const':
      return `${at}: must be ${JSON.stringify(params.allowedValue)}`;
    default:
      return `${at}: ${error.message ?? 'is invalid'}`;
  }
}

/**
 * A value of the wrong type fails every other rule at its place too (a number `trigger` fails the range object's
 * rules): only the first type error of a field is worth reading.
 */
function relevant(errors: readonly ErrorObject[]): ErrorObject[] {
  const mistyped = new Map<string, ErrorObject>();
  for (const e of errors) {
    if (e.keyword === 'type' && !mistyped.has(e.instancePath)) mistyped.set(e.instancePath, e);
  }
  return errors.filter((e) => (mistyped.get(e.instancePath) ?? e) === e);
}

/**
 * Validates a parsed scenario file and fills in its defaults (on a copy: `json` is left as it was). `source` names
 * the file in every message, e.g. `dip.json: markets[0].path.points: must NOT have fewer than 2 items`.
 */
export function parseScenario(json: unknown, source: string): Scenario {
  const scenario = structuredClone(json);
  if (!validate(scenario)) {
    const problems = relevant(validate.errors ?? [])
      .map(describe)
      .filter((p): p is string => p !== null);
    throw new ScenarioError(`${source}: ${[...new Set(problems)].join('; ') || 'is not a valid scenario'}`);
  }
  const problems = scenarioProblems(scenario);
  if (problems.length > 0) throw new ScenarioError(`${source}: ${problems.join('; ')}`);
  return scenario;
}
