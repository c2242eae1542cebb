import Ajv, { type ErrorObject, type SchemaObject, type ValidateFunction } from 'ajv';
import type { DataValidateFunction } from 'ajv/dist/types';
import { isChecksumValidAddress } from '../../shared/chain/checksum-address';
import { isNativeAddress, ZERO_ADDRESS } from '../../shared/domain/addresses';
import type { ErrorDetail } from '../../shared/domain/errors';
import { decimalAbove, fractionDigits, MAX_PRICE, MAX_PRICE_TEXT } from '../../shared/domain/amount-bounds';
import { ValidationError } from '../../shared/domain/errors';

const DECIMAL = /^\d+(\.\d+)?$/;
const PASSPHRASE = /^[!-~\u00a1-\u00ff](?:[ -~\u00a0-\u00ff]*[!-~\u00a1-\u00ff])?$/;

/** The largest gas price a limit order may carry, in gwei (stored with the order, never a cap): 1,000,000 gwei. */
export const MAX_GAS_PRICE_GWEI = 1_000_000n;
/** gwei has 9 decimals: a finer gas price is not a whole number of wei. */
const GWEI_DECIMALS = 9;

export const EVM_ADDRESS_MESSAGE = 'Must be a valid EVM address';
const ERC20_MESSAGE =
  'Must be a valid ERC-20 token address (the native token cannot be sold; use the wrapped token)';
const DECIMAL_MESSAGE = 'Must be a decimal string such as "10" or "0.5"';
const POSITIVE_DECIMAL_MESSAGE = 'Must be a decimal string greater than 0, such as "10" or "0.5"';
const SIGNER = 'the maker signs its orders, so it must be a wallet';

/**
 * A 0x address in lower case, upper case or with a correct EIP-55 checksum. The checksum is a keccak hash (about
 * 30 µs): a verdict is remembered, since the same makers and tokens come back request after request.
 */
export function isEvmAddress(v: string): boolean {
  return /^0x[0-9a-fA-F]{40}$/.test(v) && isChecksumValidAddress(v);
}
const isZeroAddress = (v: string): boolean => v === ZERO_ADDRESS;
const isPositiveDecimal = (v: string): boolean => DECIMAL.test(v) && /[1-9]/.test(v);

/**
 * Custom formats: the name is what the schema says, the message what a client reads in `error.details`. The
 * message is chosen for the value, so a detail names the rule the value broke (a wrong checksum always reads
 * `Must be a valid EVM address`, as the spec says, whatever else the field refuses).
 */
const FORMATS: Record<string, { validate: (value: string) => boolean; message: (value: string) => string }> =
  {
    // ethers accepts lowercase, uppercase and a correct EIP-55 checksum, and refuses a wrong mixed-case checksum.
    'evm-address': { validate: isEvmAddress, message: () => EVM_ADDRESS_MESSAGE },
    'erc20-address': {
      validate: (v) => isEvmAddress(v) && !isNativeAddress(v) && !isZeroAddress(v),
      message: (v) => (isEvmAddress(v) ? ERC20_MESSAGE : EVM_ADDRESS_MESSAGE),
    },
    'fee-recipient': {
      validate: (v) => isEvmAddress(v) && !isZeroAddress(v),
      message: (v) => (isEvmAddress(v) ? 'Must not be the zero address' : EVM_ADDRESS_MESSAGE),
    },
    // The zero address and the native pseudo-address have no key: an order "signed" by them can never execute.
    'maker-address': {
      validate: (v) => isEvmAddress(v) && !isNativeAddress(v) && !isZeroAddress(v),
      message: (v) =>
        !isEvmAddress(v)
          ? EVM_ADDRESS_MESSAGE
          : isZeroAddress(v)
            ? `Must not be the zero address (${SIGNER})`
            : `Must not be the native token pseudo-address (${SIGNER})`,
    },
    // The passphrase travels in a header: only bytes a header carries as sent, and no spaces the parser would trim.
    passphrase: {
      validate: (v) => PASSPHRASE.test(v),
      message: () =>
        'Must be printable ASCII or Latin-1 characters, without spaces at either end (it is sent in the x-passphrase header)',
    },
    decimal: { validate: (v) => DECIMAL.test(v), message: () => DECIMAL_MESSAGE },
    'positive-decimal': { validate: isPositiveDecimal, message: () => POSITIVE_DECIMAL_MESSAGE },
    // Compared on the integer digits, so no rounding can let 99.999… through as 100 or 100.5 as 100.
    percent: {
      validate: (v) => DECIMAL.test(v) && BigInt(v.split('.')[0]!) < 100n,
      message: (v) => (DECIMAL.test(v) ? 'Must be less than 100' : DECIMAL_MESSAGE),
    },
    price: {
      validate: (v) => isPositiveDecimal(v) && !decimalAbove(v, MAX_PRICE),
      message: (v) => (isPositiveDecimal(v) ? `Must be at most ${MAX_PRICE_TEXT}` : POSITIVE_DECIMAL_MESSAGE),
    },
    gwei: {
      validate: (v) =>
        DECIMAL.test(v) && fractionDigits(v) <= GWEI_DECIMALS && !decimalAbove(v, MAX_GAS_PRICE_GWEI),
      message: (v) =>
        !DECIMAL.test(v)
          ? DECIMAL_MESSAGE
          : fractionDigits(v) > GWEI_DECIMALS
            ? `Must have at most ${GWEI_DECIMALS} decimal places (1 wei)`
            : `Must be at most ${MAX_GAS_PRICE_GWEI} (gwei)`,
    },
    'whole-number': {
      validate: (v) => /^\d+$/.test(v),
      message: () => 'Must be a whole number written as a string, such as "30"',
    },
    'tx-hash': {
      validate: (v) => /^0x[0-9a-fA-F]{64}$/.test(v),
      message: () => 'Must be a 0x-prefixed 32-byte hex hash',
    },
    signature: {
      validate: (v) => /^0x[0-9a-fA-F]{130}$/.test(v),
      message: () => 'Must be a 65-byte hex signature (0x plus 130 hex characters)',
    },
  };

const ARTICLE: Record<string, string> = { integer: 'an integer', object: 'an object', array: 'an array' };

function fieldOf(error: ErrorObject, root: string): string {
  const parts = error.instancePath
    .split('/')
    .slice(1)
    .map((p) => p.replace(/~1/g, '/').replace(/~0/g, '~'));
  if (error.keyword === 'required') parts.push((error.params as { missingProperty: string }).missingProperty);
  if (error.keyword === 'additionalProperties') {
    parts.push((error.params as { additionalProperty: string }).additionalProperty);
  }
  if (error.keyword === 'discriminator') parts.push((error.params as { tag: string }).tag);
  return parts.length ? parts.join('.') : root;
}

/** The values a `discriminator` tag may take: the one-value `enum` (or `const`) of the tag in each branch. */
function tagValues(error: ErrorObject): string[] {
  const tag = (error.params as { tag: string }).tag;
  const branches = ((error.parentSchema as { oneOf?: SchemaObject[] } | undefined)?.oneOf ?? []) as Array<{
    properties?: Record<string, { enum?: unknown[]; const?: unknown }>;
  }>;
  return branches.flatMap((b) => {
    const property = b.properties?.[tag];
    return (property?.enum ?? (property && 'const' in property ? [property.const] : [])).map(String);
  });
}

/** A bound as a client reads it: a large power of ten as `10^36`, not JavaScript's `1e+36`. */
function limitText(limit: unknown): string {
  const text = String(limit);
  const power = /^1e\+(\d+)$/.exec(text);
  return power ? `10^${power[1]}` : text;
}

function messageOf(error: ErrorObject): string {
  const p = error.params as Record<string, unknown>;
  switch (error.keyword) {
    case 'required':
      return 'Is required';
    case 'type': {
      const type = String(p.type).split(',')[0];
      return `Must be ${ARTICLE[type] ?? `a ${type}`}`;
    }
    case 'format': {
      // `verbose` puts the value on the error; a format only ever sees strings.
      const format = FORMATS[String(p.format)];
      return format && typeof error.data === 'string' ? format.message(error.data) : 'Has an invalid format';
    }
    case 'minLength':
      return p.limit === 1 ? 'Must not be empty' : `Must be at least ${String(p.limit)} characters`;
    case 'maxLength':
      return `Must be at most ${String(p.limit)} characters`;
    case 'minimum':
      return `Must be at least ${limitText(p.limit)}`;
    case 'maximum':
      return `Must be at most ${limitText(p.limit)}`;
    case 'exclusiveMinimum':
      return `Must be greater than ${limitText(p.limit)}`;
    case 'exclusiveMaximum':
      return `Must be less than ${limitText(p.limit)}`;
    case 'enum':
      return `Must be one of: ${(p.allowedValues as unknown[]).map(String).join(', ')}`;
    case 'additionalProperties':
    case 'not':
      return 'Is not allowed';
    case 'minProperties':
      return 'Must not be empty';
    case 'minItems':
      return `Must have at least ${String(p.limit)} item(s)`;
    case 'maxItems':
      return `Must have at most ${String(p.limit)} item(s)`;
    case 'uniqueItems':
      return 'Must not repeat items';
    case 'pattern':
      return 'Has an invalid format';
    case 'x-forbidden':
      return error.message ?? 'Is not allowed';
    case 'discriminator':
      return p.tagValue === undefined ? 'Is required' : `Must be one of: ${tagValues(error).join(', ')}`;
    default:
      return error.message ?? 'Is invalid';
  }
}

/** Turns ajv errors into `{field, message}` details with dot paths; one detail per field and message. */
export function detailsOf(errors: ErrorObject[] | null | undefined, root: string): ErrorDetail[] {
  const seen = new Set<string>();
  const details: ErrorDetail[] = [];
  for (const error of errors ?? []) {
    if (error.keyword === 'if' || error.keyword === 'anyOf' || error.keyword === 'oneOf') continue;
    const detail = { field: fieldOf(error, root), message: messageOf(error) };
    const key = `${detail.field}\u0000${detail.message}`;
    if (!seen.has(key)) {
      seen.add(key);
      details.push(detail);
    }
  }
  return details;
}

export type Check<T> = (value: unknown) => value is T;

/** One ajv instance for every request schema; the same schemas feed /openapi.json. */
export class RequestValidator {
  // `verbose` puts the schema and the value on each error: a discriminator error names the values its tag may
  // take from the schema, a format error picks its message by the value.
  private readonly ajv = new Ajv({
    allErrors: true,
    strict: true,
    coerceTypes: false,
    useDefaults: false,
    discriminator: true,
    verbose: true,
  });
  private readonly compiled = new WeakMap<SchemaObject, ValidateFunction>();

  constructor() {
    for (const [name, format] of Object.entries(FORMATS)) this.ajv.addFormat(name, format.validate);
    this.ajv.addKeyword({ keyword: 'example' });
    // `x-forbidden: "<message>"` on a property refuses its presence with that message, in the same pass as
    // every other check (an `x-` extension is also valid in the OpenAPI document).
    const forbidden: DataValidateFunction = (message: string) => {
      forbidden.errors = [{ keyword: 'x-forbidden', message, params: {} }];
      return false;
    };
    this.ajv.addKeyword({ keyword: 'x-forbidden', schemaType: 'string', errors: true, validate: forbidden });
  }

  private compile(schema: SchemaObject): ValidateFunction {
    let fn = this.compiled.get(schema);
    if (!fn) {
      fn = this.ajv.compile(schema);
      this.compiled.set(schema, fn);
    }
    return fn;
  }

  /** Details of what is wrong, or an empty array. */
  check(schema: SchemaObject, value: unknown, root: string): ErrorDetail[] {
    const fn = this.compile(schema);
    return fn(value) ? [] : detailsOf(fn.errors, root);
  }

  /** Throws VALIDATION_ERROR with `message` (e.g. `Invalid request body`) when the value does not fit. */
  assert<T>(schema: SchemaObject, value: unknown, message: string, root = 'body'): T {
    const details = this.check(schema, value, root);
    if (details.length) throw new ValidationError(message, details);
    return value as T;
  }
}

export const INVALID_BODY = 'Invalid request body';
export const INVALID_QUERY = 'Invalid query parameters';
