/**
 * Reads an aggregator's untrusted JSON answer one field at a time: each accessor checks the type it promises and
 * names the field's path when it does not hold, so a malformed answer is `unavailable`, never a wrong amount.
 */
import { ExternalAggregatorError, type ExternalAggregatorId } from './external-aggregator';

const ADDRESS = /^0x[0-9a-fA-F]{40}$/;
const HEX_DATA = /^0x([0-9a-fA-F]{2})*$/;
const UINT = /^\d+$/;

export class AnswerReader {
  private constructor(
    private readonly value: Record<string, unknown>,
    private readonly path: string,
    private readonly where: string,
    private readonly aggregatorId: ExternalAggregatorId,
  ) {}

  /** The top-level object of an answer; `where` names it in messages ("0x /swap/allowance-holder/quote"). */
  static root(value: unknown, where: string, aggregatorId: ExternalAggregatorId): AnswerReader {
    if (!isObject(value)) {
      throw new ExternalAggregatorError(
        aggregatorId,
        'unavailable',
        `${where}: the body is not a JSON object`,
      );
    }
    return new AnswerReader(value, '', where, aggregatorId);
  }

  has(key: string): boolean {
    return this.value[key] !== undefined && this.value[key] !== null;
  }

  /** The field as it came, for objects an API wants back verbatim (ParaSwap's priceRoute). */
  raw(key: string): unknown {
    return this.value[key];
  }

  object(key: string): AnswerReader {
    const value = this.value[key];
    if (!isObject(value)) throw this.fail(key, 'is not an object');
    return new AnswerReader(value, this.at(key), this.where, this.aggregatorId);
  }

  optionalObject(key: string): AnswerReader | null {
    return this.has(key) ? this.object(key) : null;
  }

  /** The objects of an array (an absent array reads as empty). */
  objects(key: string): AnswerReader[] {
    return this.array(key).map((item, index) => {
      if (!isObject(item)) throw this.fail(`${key}[${index}]`, 'is not an object');
      return new AnswerReader(item, this.at(`${key}[${index}]`), this.where, this.aggregatorId);
    });
  }

  /** The first element of an array of decimal amounts (Odos `outAmounts`). */
  firstUint(key: string): bigint {
    const [first] = this.array(key);
    if (typeof first !== 'string' || !UINT.test(first))
      throw this.fail(`${key}[0]`, 'is not an integer string');
    return BigInt(first);
  }

  /** The first element of an array of addresses (Odos `outTokens`). */
  firstAddress(key: string): string {
    const [first] = this.array(key);
    if (typeof first !== 'string' || !ADDRESS.test(first)) throw this.fail(`${key}[0]`, 'is not an address');
    return first;
  }

  string(key: string): string {
    const value = this.value[key];
    if (typeof value !== 'string' || value === '') throw this.fail(key, 'is not a non-empty string');
    return value;
  }

  boolean(key: string): boolean {
    const value = this.value[key];
    if (typeof value !== 'boolean') throw this.fail(key, 'is not a boolean');
    return value;
  }

  optionalBoolean(key: string): boolean | null {
    return this.has(key) ? this.boolean(key) : null;
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

  /**
   * A gas figure, which APIs send as a decimal string, a JSON integer, or (Odos) a float: rounded up, since a gas
   * estimate that falls short is the costlier mistake.
   */
  gas(key: string): bigint {
    const value = this.value[key];
    if (typeof value === 'string' && UINT.test(value)) return BigInt(value);
    if (typeof value === 'number' && Number.isFinite(value) && value >= 0) return BigInt(Math.ceil(value));
    throw this.fail(key, 'is not a gas amount');
  }

  /** A gas estimate APIs leave out, or send as 0 or -1, when they did not estimate: null then. */
  estimatedGas(key: string): bigint | null {
    const value = this.value[key];
    if (value === undefined || value === null || value === '0') return null;
    if (typeof value === 'number' && Number.isFinite(value) && value <= 0) return null;
    return this.gas(key);
  }

  /** A chain id: a JSON integer. */
  integer(key: string): number {
    const value = this.value[key];
    if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 0) {
      throw this.fail(key, 'is not a non-negative integer');
    }
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

  hexData(key: string): string {
    const value = this.string(key);
    if (!HEX_DATA.test(value) || value === '0x') throw this.fail(key, 'is not calldata');
    return value;
  }

  /** A transaction value: a decimal string, or a hex quantity, as some APIs send. */
  value256(key: string): bigint {
    const value = this.string(key);
    if (UINT.test(value)) return BigInt(value);
    if (/^0x[0-9a-fA-F]+$/.test(value)) return BigInt(value);
    throw this.fail(key, 'is not an amount');
  }

  /** Fails naming the field, for checks of meaning the accessors cannot make (a token that was not asked for). */
  fail(key: string, problem: string): ExternalAggregatorError {
    return new ExternalAggregatorError(
      this.aggregatorId,
      'unavailable',
      `${this.where}: ${this.at(key)} ${problem}`,
    );
  }

  private array(key: string): unknown[] {
    const value = this.value[key];
    if (value === undefined || value === null) return [];
    if (!Array.isArray(value)) throw this.fail(key, 'is not an array');
    return value as unknown[];
  }

  private at(key: string): string {
    return this.path ? `${this.path}.${key}` : key;
  }
}

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);
