/**
 * Reads untrusted JSON one field at a time: each accessor checks the type it promises and names the field's path
 * when it does not hold, so a malformed LI.FI answer is a `bad-response`, never a wrong amount.
 */
import { LifiError } from './lifi-error';
import { isDecimalString } from './lifi-amounts';

const ADDRESS = /^0x[0-9a-fA-F]{40}$/;
const HEX_QUANTITY = /^0x[0-9a-fA-F]+$/;
const HEX_DATA = /^0x([0-9a-fA-F]{2})*$/;
const TX_HASH = /^0x[0-9a-fA-F]{64}$/;
const UINT = /^\d+$/;

export class JsonReader {
  private constructor(
    private readonly value: Record<string, unknown>,
    private readonly path: string,
    private readonly what: string,
  ) {}

  /** The top-level object of an answer; `what` names the endpoint in messages ("quote", "status"). */
  static root(value: unknown, what: string): JsonReader {
    if (!isObject(value)) throw new LifiError('bad-response', `LI.FI ${what}: the body is not a JSON object`);
    return new JsonReader(value, '', what);
  }

  has(key: string): boolean {
    return this.value[key] !== undefined && this.value[key] !== null;
  }

  object(key: string): JsonReader {
    const value = this.value[key];
    if (!isObject(value)) throw this.fail(key, 'is not an object');
    return new JsonReader(value, this.at(key), this.what);
  }

  optionalObject(key: string): JsonReader | null {
    return this.has(key) ? this.object(key) : null;
  }

  /** The objects of an array (an absent array reads as empty). */
  objects(key: string): JsonReader[] {
    const value = this.value[key];
    if (value === undefined || value === null) return [];
    if (!Array.isArray(value)) throw this.fail(key, 'is not an array');
    return value.map((item: unknown, index) => {
      if (!isObject(item)) throw this.fail(`${key}[${index}]`, 'is not an object');
      return new JsonReader(item, this.at(`${key}[${index}]`), this.what);
    });
  }

  string(key: string): string {
    const value = this.value[key];
    if (typeof value !== 'string' || value === '') throw this.fail(key, 'is not a non-empty string');
    return value;
  }

  optionalString(key: string): string | null {
    return this.has(key) ? this.string(key) : null;
  }

  oneOf<T extends string>(key: string, values: readonly T[]): T {
    const value = this.string(key);
    const found = values.find((candidate) => candidate === value);
    if (found === undefined) throw this.fail(key, `is not one of ${values.join(', ')}`);
    return found;
  }

  optionalBoolean(key: string): boolean | null {
    if (!this.has(key)) return null;
    const value = this.value[key];
    if (typeof value !== 'boolean') throw this.fail(key, 'is not a boolean');
    return value;
  }

  /** A chain id or a token's decimals: a JSON integer, never a string. */
  integer(key: string): number {
    const value = this.value[key];
    if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 0) {
      throw this.fail(key, 'is not a non-negative integer');
    }
    return value;
  }

  optionalInteger(key: string): number | null {
    return this.has(key) ? this.integer(key) : null;
  }

  /** A duration or similar measure: any finite non-negative JSON number. */
  number(key: string): number {
    const value = this.value[key];
    if (typeof value !== 'number' || !Number.isFinite(value) || value < 0) {
      throw this.fail(key, 'is not a non-negative number');
    }
    return value;
  }

  /** A base-unit amount sent as a decimal integer string ("1000000"). */
  uint(key: string): bigint {
    const value = this.string(key);
    if (!UINT.test(value)) throw this.fail(key, 'is not an integer string');
    return BigInt(value);
  }

  optionalUint(key: string): bigint | null {
    return this.has(key) ? this.uint(key) : null;
  }

  /** A USD amount or similar plain decimal string ("0.0423"). */
  optionalDecimal(key: string): string | null {
    if (!this.has(key)) return null;
    const value = this.string(key);
    if (!isDecimalString(value)) throw this.fail(key, 'is not a plain decimal string');
    return value;
  }

  address(key: string): string {
    const value = this.string(key);
    if (!ADDRESS.test(value)) throw this.fail(key, 'is not an address');
    return value;
  }

  optionalAddress(key: string): string | null {
    return this.has(key) ? this.address(key) : null;
  }

  /** A transaction quantity in hex ("0x0", "0x45e8a"). */
  hexQuantity(key: string): bigint {
    const value = this.string(key);
    if (!HEX_QUANTITY.test(value)) throw this.fail(key, 'is not a hex quantity');
    return BigInt(value);
  }

  optionalHexQuantity(key: string): bigint | null {
    return this.has(key) ? this.hexQuantity(key) : null;
  }

  hexData(key: string): string {
    const value = this.string(key);
    if (!HEX_DATA.test(value)) throw this.fail(key, 'is not hex data');
    return value;
  }

  optionalTxHash(key: string): string | null {
    if (!this.has(key)) return null;
    const value = this.string(key);
    if (!TX_HASH.test(value)) throw this.fail(key, 'is not a transaction hash');
    return value;
  }

  private at(key: string): string {
    return this.path ? `${this.path}.${key}` : key;
  }

  private fail(key: string, problem: string): LifiError {
    return new LifiError('bad-response', `LI.FI ${this.what}: ${this.at(key)} ${problem}`);
  }
}

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);
