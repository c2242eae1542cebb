import fc from 'fast-check';
import { NATIVE_TOKEN_ADDRESS as NATIVE, ZERO_ADDRESS as ZERO } from '../../shared/domain/addresses';

/**
 * Bodies for POST /quotes and POST /swap that are mostly valid with absurd values mixed in (1e308, 70-digit and
 * uint256-edge amounts, slippage "100.5", "-1", "1e-30", "NaN", "Infinity", huge feeBps, unsignable accounts…),
 * so property runs reach every check of the routes, and on a tradable chain the routing and calldata building
 * behind them.
 */

const UINT256_MAX = (2n ** 256n - 1n).toString();

/** `uint256 max` written as a human amount of a token with `decimals` decimals: the largest amount that fits. */
export function largestAmount(decimals: number): string {
  const whole = UINT256_MAX.slice(0, UINT256_MAX.length - decimals);
  return decimals ? `${whole}.${UINT256_MAX.slice(-decimals)}` : whole;
}

/** The EIP-55 address with one letter's case flipped: mixed case, wrong checksum. */
export function wrongChecksum(checksummed: string): string {
  const i = checksummed.slice(2).search(/[a-fA-F]/) + 2;
  const c = checksummed[i]!;
  const flipped = c === c.toUpperCase() ? c.toLowerCase() : c.toUpperCase();
  return `${checksummed.slice(0, i)}${flipped}${checksummed.slice(i + 1)}`;
}

/** Strings no decimal field should accept, or accept only up to a bound. */
export const ABSURD_DECIMALS = [
  '1e308',
  '-1',
  '1e-30',
  'NaN',
  'Infinity',
  '-Infinity',
  '-0',
  '0',
  '0.0',
  '',
  ' 1',
  '1.',
  '.5',
  '0x10',
  '100',
  '100.5',
  '99.99999999999999999999',
  '9'.repeat(70),
  '9'.repeat(78),
  '9'.repeat(101),
  UINT256_MAX,
  `${UINT256_MAX}1`,
  '0.0000001',
  `0.${'0'.repeat(40)}1`,
  '1'.padEnd(100, '0'),
];

const absurdScalar = fc.constantFrom<unknown>(
  1e308,
  -1e308,
  -1,
  0,
  1.5,
  2 ** 53,
  Number.MAX_SAFE_INTEGER,
  1e-30,
  null,
  true,
  [],
  {},
  '1',
);
const absurd = fc.oneof(fc.constantFrom<unknown>(...ABSURD_DECIMALS), absurdScalar);

/** A good value three times in four, else something absurd. */
const mostly = <T>(good: fc.Arbitrary<T>, bad: fc.Arbitrary<unknown> = absurd): fc.Arbitrary<unknown> =>
  fc.oneof({ arbitrary: good, weight: 3 }, { arbitrary: bad, weight: 1 });

export interface TradeWorld {
  chainId: number;
  /** A second chain for cross-chain bodies. */
  otherChainId: number;
  /** Listed tokens of `chainId` (EIP-55), with their decimals; the native pseudo-address is added. */
  tokens: Array<{ address: string; decimals: number }>;
  aggregatorIds: string[];
}

/** Bodies for POST /quotes (`swap: false`) or POST /swap (`swap: true`). */
export function tradeBody(world: TradeWorld, swap: boolean): fc.Arbitrary<Record<string, unknown>> {
  const listed = [...world.tokens, { address: NATIVE, decimals: 18 }];
  const token = fc.constantFrom(...listed.map((t) => t.address));
  const badAddress = fc.constantFrom<unknown>(
    ZERO,
    NATIVE.toLowerCase(),
    wrongChecksum(world.tokens[0]!.address),
    '0x1111111111111111111111111111111111111111',
    '0x1234',
    42,
  );
  const amount = fc.oneof(
    { arbitrary: fc.stringMatching(/^[1-9]\d{0,2}(\.\d{1,6})?$/), weight: 4 },
    { arbitrary: fc.constantFrom(...listed.map((t) => largestAmount(t.decimals))), weight: 1 },
    { arbitrary: fc.constantFrom('9'.repeat(59), '1'.padEnd(40, '0')), weight: 1 },
    // Just beyond a uint256 in base units of each token.
    { arbitrary: fc.constantFrom(...listed.map((t) => '9'.repeat(79 - t.decimals))), weight: 1 },
    { arbitrary: absurd, weight: 2 },
  );
  const slippage = mostly(
    fc.constantFrom('0', '0.5', '1', '99.99'),
    fc.oneof(absurd, fc.constantFrom('100', '100.5', '150', '9'.repeat(70))),
  );
  const gasPrice = mostly(fc.constantFrom('0', '1', '30'), fc.oneof(absurd, fc.constant('9'.repeat(80))));
  // Fresh accounts hold nothing: a swap's dry run stops at the funding check and answers 200 with calldata.
  const account = mostly(
    fc.uint8Array({ minLength: 20, maxLength: 20 }).map((b) => `0x${Buffer.from(b).toString('hex')}`),
    badAddress,
  );
  const aggregatorId = mostly(fc.constantFrom(...world.aggregatorIds), fc.constantFrom<unknown>('x', '', 7));
  const fees = fc.record({
    feeBps: mostly(
      fc.integer({ min: 0, max: 100 }),
      fc.constantFrom<unknown>(101, -1, 1e308, 1.5, 2 ** 53, '10'),
    ),
    feeRecipient: mostly(fc.constant('0x15d34AAf54267DB7D7c367839AAf71A00a2C6A65'), badAddress),
  });
  const withSwap = (params: Record<string, unknown>, a: unknown, id: unknown): Record<string, unknown> =>
    swap ? { ...params, account: a, aggregatorId: id } : params;

  const single = fc
    .record({
      chainId: mostly(fc.constant(world.chainId), fc.constantFrom<unknown>(999, 0, -1, 1e308, '1')),
      inTokenAddress: mostly(token, badAddress),
      outTokenAddress: mostly(token, badAddress),
      amount,
      gasPrice,
      slippage,
      includeGasInfo: fc.boolean(),
      gasMultiplier: mostly(fc.constantFrom('NONE', 'LOW', 'MEDIUM', 'HIGH'), fc.constant('ULTRA')),
      account,
      aggregatorId,
    })
    .map(({ account: a, aggregatorId: id, ...params }) => withSwap(params, a, id));
  const cross = fc
    .record({
      fromChainId: mostly(fc.constant(world.chainId), absurdScalar),
      toChainId: mostly(fc.constant(world.otherChainId), absurdScalar),
      inTokenAddress: mostly(token, badAddress),
      outTokenAddress: mostly(token, badAddress),
      amount,
      slippage,
      account,
      aggregatorId,
    })
    .map(({ account: a, aggregatorId: id, ...params }) => withSwap(params, a, id));

  return fc.oneof(
    { arbitrary: fc.record({ mode: fc.constant('single-chain'), params: single }), weight: 4 },
    { arbitrary: fc.record({ mode: fc.constant('cross-chain'), params: cross }), weight: 2 },
    {
      arbitrary: fc.record(
        { mode: fc.constant('single-chain'), params: single, fees },
        { requiredKeys: ['mode', 'params', 'fees'] },
      ),
      weight: 2,
    },
    { arbitrary: fc.record({ mode: absurd, params: single }), weight: 1 },
  );
}

const DECIMAL = /^\d+(\.\d+)?$/;
const isRecord = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * Whether a well-signed body breaks a bound the service must refuse with 400 whatever else it holds: a slippage
 * of 100 or more, or an amount of a token listed on `world.chainId` that is finer than its decimals or beyond
 * a uint256 in base units.
 */
export function breaksTradeBounds(world: TradeWorld, body: unknown): boolean {
  if (!isRecord(body) || !isRecord(body.params)) return false;
  const p = body.params;
  if (
    typeof p.slippage === 'string' &&
    DECIMAL.test(p.slippage) &&
    BigInt(p.slippage.split('.')[0]!) >= 100n
  ) {
    return true;
  }
  const chainId = body.mode === 'cross-chain' ? p.fromChainId : p.chainId;
  const { amount, inTokenAddress } = p;
  if (chainId !== world.chainId || typeof amount !== 'string' || !DECIMAL.test(amount)) return false;
  if (typeof inTokenAddress !== 'string') return false;
  const token = [...world.tokens, { address: NATIVE, decimals: 18 }].find(
    (t) => t.address.toLowerCase() === inTokenAddress.toLowerCase(),
  );
  if (!token) return false;
  const [whole, fraction = ''] = amount.split('.');
  const digits = fraction.replace(/0+$/, '');
  if (digits.length > token.decimals) return true;
  return BigInt(`${whole}${digits.padEnd(token.decimals, '0')}`) > BigInt(UINT256_MAX);
}
