import type { SchemaObject } from 'ajv';
import { ValidationError } from '../../shared/domain/errors';
import { INVALID_BODY, RequestValidator } from '../../api/http/validator';
import { NATIVE_TOKEN_ADDRESS, ZERO_ADDRESS } from '../../shared/domain/addresses';

// EIP-55's own examples.
const CHECKSUMMED = '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed';
const BAD_CHECKSUM = '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAeD';
const NATIVE_UPPER = `0x${'E'.repeat(40)}`;

const quoteLike: SchemaObject = {
  type: 'object',
  required: ['name', 'params'],
  additionalProperties: false,
  properties: {
    name: { type: 'string', minLength: 6 },
    params: {
      type: 'object',
      required: ['chainId', 'amount'],
      properties: {
        chainId: { type: 'integer', minimum: 1 },
        amount: { type: 'string', format: 'positive-decimal' },
        slippage: { type: 'string', format: 'decimal' },
        account: { type: 'string', format: 'evm-address' },
        tokenIn: { type: 'string', format: 'erc20-address' },
        side: { type: 'string', enum: ['buy', 'sell'] },
      },
    },
    fees: {
      type: 'object',
      properties: {
        feeBps: { type: 'integer', minimum: 0, maximum: 100 },
        feeRecipient: { type: 'string', format: 'fee-recipient' },
      },
    },
    tags: { type: 'array', items: { type: 'string' }, maxItems: 2 },
  },
};

const address = (format: string): SchemaObject => ({
  type: 'object',
  required: ['a'],
  properties: { a: { type: 'string', format } },
});

describe('RequestValidator: details', () => {
  const validator = new RequestValidator();

  it('answers no details for a valid value', () => {
    expect(
      validator.check(
        quoteLike,
        {
          name: 'abcdef',
          params: { chainId: 137, amount: '10.5', account: CHECKSUMMED },
          fees: { feeBps: 0 },
        },
        'body',
      ),
    ).toEqual([]);
  });

  it('names missing fields by dot path with `Is required`', () => {
    expect(validator.check(quoteLike, { params: {} }, 'body')).toEqual([
      { field: 'name', message: 'Is required' },
      { field: 'params.chainId', message: 'Is required' },
      { field: 'params.amount', message: 'Is required' },
    ]);
  });

  it('names wrongly typed fields by dot path', () => {
    expect(
      validator.check(
        quoteLike,
        { name: 123456, params: { chainId: '137', amount: 10 }, fees: 'x', tags: {} },
        'body',
      ),
    ).toEqual([
      { field: 'name', message: 'Must be a string' },
      { field: 'params.chainId', message: 'Must be an integer' },
      { field: 'params.amount', message: 'Must be a string' },
      { field: 'fees', message: 'Must be an object' },
      { field: 'tags', message: 'Must be an array' },
    ]);
  });

  it('reports ranges, lengths, enums, unknown keys and array sizes', () => {
    expect(
      validator.check(
        quoteLike,
        {
          name: 'abc',
          params: { chainId: 0, amount: '1', side: 'hold' },
          fees: { feeBps: 101 },
          tags: ['a', 'b', 'c'],
          extra: 1,
        },
        'body',
      ),
    ).toEqual([
      { field: 'extra', message: 'Is not allowed' },
      { field: 'name', message: 'Must be at least 6 characters' },
      { field: 'params.chainId', message: 'Must be at least 1' },
      { field: 'params.side', message: 'Must be one of: buy, sell' },
      { field: 'fees.feeBps', message: 'Must be at most 100' },
      { field: 'tags', message: 'Must have at most 2 item(s)' },
    ]);
  });

  it('reports format messages', () => {
    expect(
      validator.check(
        quoteLike,
        {
          name: 'abcdef',
          params: { chainId: 1, amount: '0.0', slippage: '1e3' },
          fees: { feeRecipient: ZERO_ADDRESS },
        },
        'body',
      ),
    ).toEqual([
      { field: 'params.amount', message: 'Must be a decimal string greater than 0, such as "10" or "0.5"' },
      { field: 'params.slippage', message: 'Must be a decimal string such as "10" or "0.5"' },
      { field: 'fees.feeRecipient', message: 'Must not be the zero address' },
    ]);
  });

  it('names the root when the value itself is wrong', () => {
    expect(validator.check(quoteLike, null, 'body')).toEqual([
      { field: 'body', message: 'Must be an object' },
    ]);
    expect(validator.check(quoteLike, [], 'query')).toEqual([
      { field: 'query', message: 'Must be an object' },
    ]);
  });

  it('assert throws VALIDATION_ERROR with the message and the details', () => {
    let thrown: unknown;
    try {
      validator.assert(quoteLike, { name: 'abcdef', params: { chainId: 1.5, amount: '1' } }, INVALID_BODY);
    } catch (err) {
      thrown = err;
    }
    expect(thrown).toBeInstanceOf(ValidationError);
    const error = thrown as ValidationError;
    expect([error.status, error.code, error.message]).toEqual([
      400,
      'VALIDATION_ERROR',
      'Invalid request body',
    ]);
    expect(error.details).toEqual([{ field: 'params.chainId', message: 'Must be an integer' }]);
  });

  it('assert returns the value when it fits', () => {
    const value = { name: 'abcdef', params: { chainId: 1, amount: '1' } };
    expect(validator.assert(quoteLike, value, INVALID_BODY)).toBe(value);
  });
});

describe('RequestValidator: address formats', () => {
  const validator = new RequestValidator();
  const check = (format: string, a: unknown) => validator.check(address(format), { a }, 'body');
  const evmError = [{ field: 'a', message: 'Must be a valid EVM address' }];
  const erc20Error = [
    {
      field: 'a',
      message:
        'Must be a valid ERC-20 token address (the native token cannot be sold; use the wrapped token)',
    },
  ];

  it('evm-address accepts EIP-55, lowercase and uppercase hex', () => {
    expect(check('evm-address', CHECKSUMMED)).toEqual([]);
    expect(check('evm-address', CHECKSUMMED.toLowerCase())).toEqual([]);
    expect(check('evm-address', `0x${CHECKSUMMED.slice(2).toUpperCase()}`)).toEqual([]);
  });

  it('evm-address refuses a wrong mixed-case checksum with `Must be a valid EVM address`', () => {
    expect(check('evm-address', BAD_CHECKSUM)).toEqual(evmError);
  });

  it.each([
    ['too short', CHECKSUMMED.slice(0, 41)],
    ['too long', `${CHECKSUMMED}0`],
    ['no 0x', CHECKSUMMED.slice(2)],
    ['0X prefix', `0X${CHECKSUMMED.slice(2)}`],
    ['non-hex', `0x${'g'.repeat(40)}`],
    ['ICAP', 'XE7338O073KYGTWWZN0F2WZ0R8PX5ZPPZS'],
    ['empty', ''],
  ])('evm-address refuses %s', (_name, value) => {
    expect(check('evm-address', value)).toEqual(evmError);
  });

  it('accepts the native pseudo-address in either casing as evm-address', () => {
    expect(check('evm-address', NATIVE_TOKEN_ADDRESS)).toEqual([]);
    expect(check('evm-address', NATIVE_UPPER)).toEqual([]);
  });

  it('erc20-address refuses the native pseudo-address in either casing and the zero address', () => {
    expect(check('erc20-address', NATIVE_TOKEN_ADDRESS)).toEqual(erc20Error);
    expect(check('erc20-address', NATIVE_UPPER)).toEqual(erc20Error);
    expect(check('erc20-address', ZERO_ADDRESS)).toEqual(erc20Error);
  });

  it.each(['erc20-address', 'fee-recipient', 'maker-address'])(
    "%s answers a wrong checksum with the spec's `Must be a valid EVM address`",
    (format) => {
      expect(check(format, BAD_CHECKSUM)).toEqual(evmError);
      expect(check(format, '0x1234')).toEqual(evmError);
    },
  );

  it('maker-address refuses the zero address and the native pseudo-address in either casing', () => {
    const signer = 'the maker signs its orders, so it must be a wallet';
    expect(check('maker-address', ZERO_ADDRESS)).toEqual([
      { field: 'a', message: `Must not be the zero address (${signer})` },
    ]);
    for (const native of [NATIVE_TOKEN_ADDRESS, NATIVE_UPPER, '0xEeeeeEeeeEeEeeEeEeEeeEEEeeeeEeeeeeeeEEeE']) {
      expect(check('maker-address', native)).toEqual([
        { field: 'a', message: `Must not be the native token pseudo-address (${signer})` },
      ]);
    }
    expect(check('maker-address', CHECKSUMMED)).toEqual([]);
  });

  it('erc20-address accepts a token in EIP-55 or lowercase form', () => {
    expect(check('erc20-address', CHECKSUMMED)).toEqual([]);
    expect(check('erc20-address', CHECKSUMMED.toLowerCase())).toEqual([]);
  });

  it('fee-recipient refuses the zero address but accepts any other valid address', () => {
    expect(check('fee-recipient', ZERO_ADDRESS)).toEqual([
      { field: 'a', message: 'Must not be the zero address' },
    ]);
    expect(check('fee-recipient', CHECKSUMMED)).toEqual([]);
  });

  it('a wrong type is reported as a type error, not a format error', () => {
    expect(check('evm-address', 42)).toEqual([{ field: 'a', message: 'Must be a string' }]);
  });
});

describe('RequestValidator: other formats', () => {
  const validator = new RequestValidator();
  const check = (format: string, a: unknown) => validator.check(address(format), { a }, 'body');

  it.each([
    ['decimal', '0', true],
    ['decimal', '10.50', true],
    ['decimal', '.5', false],
    ['decimal', '1.', false],
    ['decimal', '-1', false],
    ['decimal', '1e3', false],
    ['decimal', ' 1', false],
    ['positive-decimal', '0.001', true],
    ['positive-decimal', '0.000', false],
    ['whole-number', '30', true],
    ['whole-number', '3.0', false],
    ['tx-hash', `0x${'ab'.repeat(32)}`, true],
    ['tx-hash', `0x${'ab'.repeat(31)}`, false],
    ['signature', `0x${'1c'.repeat(65)}`, true],
    ['signature', `0x${'1c'.repeat(64)}`, false],
    ['percent', '0', true],
    ['percent', '99.9999999999', true],
    ['percent', '100', false],
    ['percent', '0100', false],
    ['price', `1${'0'.repeat(36)}`, true],
    ['price', `1${'0'.repeat(36)}.000`, true],
    ['price', `1${'0'.repeat(36)}.1`, false],
    ['gwei', '0', true],
    ['gwei', '1000000', true],
    ['gwei', '0.000000001', true],
    ['gwei', '0.0000000010', true],
  ])('%s %j valid: %s', (format, value, valid) => {
    expect(check(format, value).length === 0).toBe(valid);
  });

  it.each([
    ['percent', '100.5', 'Must be less than 100'],
    ['percent', '-1', 'Must be a decimal string such as "10" or "0.5"'],
    ['percent', 'NaN', 'Must be a decimal string such as "10" or "0.5"'],
    ['price', '0', 'Must be a decimal string greater than 0, such as "10" or "0.5"'],
    ['price', `1${'0'.repeat(36)}1`, 'Must be at most 10^36'],
    ['gwei', '1e3', 'Must be a decimal string such as "10" or "0.5"'],
    ['gwei', '0.0000000001', 'Must have at most 9 decimal places (1 wei)'],
    ['gwei', '1000000.1', 'Must be at most 1000000 (gwei)'],
  ])('%s refuses %j naming the rule: %s', (format, value, message) => {
    expect(check(format, value)).toEqual([{ field: 'a', message }]);
  });

  it('writes a large power-of-ten bound as 10^k', () => {
    const schema: SchemaObject = { type: 'object', properties: { a: { type: 'number', maximum: 1e36 } } };
    expect(validator.check(schema, { a: 1e308 }, 'body')).toEqual([
      { field: 'a', message: 'Must be at most 10^36' },
    ]);
  });
});
