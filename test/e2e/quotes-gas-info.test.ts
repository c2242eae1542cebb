import { formatUnits, parseUnits, type JsonRpcProvider } from 'ethers';
import type { ManifestChain } from '../../devnet/manifest';
import type { ApiClient, ApiResponse, Envelope } from '../helpers/api-client';
import { startDevnetApi, waitUntilQuotesAvailable, type DevnetApi } from '../helpers/devnet-api';

/**
 * POST /quotes `includeGasInfo` → `dataFeeTransaction`, through the real HTTP API on a devnet chain. The chain
 * stays idle during the suite (nothing is sent), so the pool state and the chain's fees do not move between a
 * quote and the reads that check it.
 */

jest.setTimeout(180_000);

interface DataFeeTransaction {
  effectiveGasPrice: string;
  transactionFee: string;
  transactionFeeInUSD: string | null;
  nativePrice: string | null;
  tokenPrice: string | null;
  transactionFeeInToken: string | null;
  valueToApprove: string | null;
}
interface Quote {
  outAmount: string;
  estimatedGas: string;
  aggregatorId: string;
  gasMultiplier: string;
  dataFeeTransaction?: DataFeeTransaction;
}

const CHAIN_ID = 1;
const NATIVE_LOWER = '0xeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeee';
/** A USD amount as a plain decimal string: no exponent, no grouping. */
const DECIMAL = /^\d+(\.\d+)?$/;
/** The spec's scale of estimatedGas per gasMultiplier, in percent. */
const MULTIPLIER_PERCENT = { NONE: 100n, LOW: 155n, MEDIUM: 200n, HIGH: 400n } as const;

const ceilDiv = (a: bigint, b: bigint) => (a + b - 1n) / b;

function expectClose(actual: number, expected: number, relative: number): void {
  expect(Math.abs(actual - expected)).toBeLessThanOrEqual(Math.abs(expected) * relative);
}

describe('POST /quotes includeGasInfo (dataFeeTransaction)', () => {
  let api: DevnetApi;
  let manifest: ManifestChain;
  let provider: JsonRpcProvider;
  let client: ApiClient;
  let weth: string;
  let usdc: string;

  const params = (over: Record<string, unknown> = {}) => ({
    chainId: CHAIN_ID,
    inTokenAddress: weth,
    outTokenAddress: usdc,
    amount: '1',
    gasPrice: '30',
    slippage: '0.5',
    ...over,
  });
  const quote = (over: Record<string, unknown> = {}): Promise<ApiResponse<Envelope<{ quote: Quote }>>> =>
    client.post<{ quote: Quote }>('/quotes', { mode: 'single-chain', params: params(over) });
  async function quoteOk(over: Record<string, unknown> = {}): Promise<Quote> {
    const res = await quote(over);
    if (res.status !== 200) throw new Error(`quote failed: ${res.status} ${res.text}`);
    return res.body.data!.quote;
  }

  /** Base fee of the latest block plus the node's priority fee: what a transaction sent now pays per gas. */
  async function chainGasPrice(): Promise<bigint> {
    const block = await provider.getBlock('latest');
    const priority = BigInt(String(await provider.send('eth_maxPriorityFeePerGas', [])));
    return block!.baseFeePerGas! + priority;
  }

  function expectFields(fee: DataFeeTransaction): void {
    expect(Object.keys(fee).sort()).toEqual([
      'effectiveGasPrice',
      'nativePrice',
      'tokenPrice',
      'transactionFee',
      'transactionFeeInToken',
      'transactionFeeInUSD',
      'valueToApprove',
    ]);
    expect(fee.effectiveGasPrice).toMatch(/^\d+$/);
    expect(fee.transactionFee).toMatch(/^\d+$/);
    for (const usd of [fee.transactionFeeInUSD, fee.nativePrice, fee.tokenPrice])
      expect(usd).toMatch(DECIMAL);
    expect(fee.transactionFeeInToken).toMatch(DECIMAL);
    expect(fee.valueToApprove).toMatch(DECIMAL);
  }

  /** `valueToApprove` is `amount` plus `transactionFeeInToken`, exactly, in the input token's units. */
  function expectValueToApprove(fee: DataFeeTransaction, amount: string, decimals: number): void {
    expect(parseUnits(fee.valueToApprove!, decimals)).toBe(
      parseUnits(amount, decimals) + parseUnits(fee.transactionFeeInToken!, decimals),
    );
  }

  beforeAll(async () => {
    api = await startDevnetApi(CHAIN_ID, 'tas-gas-info-');
    ({ manifest, provider, client } = api);
    weth = manifest.contracts.weth;
    usdc = manifest.tokens.find((t) => t.symbol === 'USDC')!.address;
    await waitUntilQuotesAvailable(() => quote());
  });

  afterAll(async () => {
    await api?.close();
  });

  it('leaves dataFeeTransaction out without includeGasInfo, and does not scale estimatedGas then', async () => {
    const plain = await quoteOk();
    expect(plain).not.toHaveProperty('dataFeeTransaction');
    const off = await quoteOk({ includeGasInfo: false, gasMultiplier: 'HIGH' });
    expect(off).not.toHaveProperty('dataFeeTransaction');
    expect(off.gasMultiplier).toBe('HIGH');
    expect(off.estimatedGas).toBe(plain.estimatedGas);
  });

  it('gives all seven fields for WETH → USDC: the chain gas price, the fee in wei, USD and WETH', async () => {
    const base = await quoteOk();
    const q = await quoteOk({ includeGasInfo: true, amount: '1.25' });
    const fee = q.dataFeeTransaction!;
    expectFields(fee);
    expect(q.gasMultiplier).toBe('NONE');
    expect(q.estimatedGas).toBe(base.estimatedGas);
    expect(BigInt(fee.effectiveGasPrice)).toBe(await chainGasPrice());
    expect(BigInt(fee.transactionFee)).toBe(BigInt(q.estimatedGas) * BigInt(fee.effectiveGasPrice));
    expect(BigInt(fee.transactionFee)).toBeGreaterThan(0n);

    // Pools are seeded at ETH = 3,000 USD.
    const nativePrice = Number(fee.nativePrice);
    expectClose(nativePrice, 3_000, 0.02);
    expectClose(Number(fee.tokenPrice), 3_000, 0.02);
    const feeInEther = Number(formatUnits(BigInt(fee.transactionFee), 18));
    expectClose(Number(fee.transactionFeeInUSD), feeInEther * nativePrice, 1e-6);
    // Selling WETH, the fee in the input token is the fee in wei itself.
    expect(parseUnits(fee.transactionFeeInToken!, 18)).toBe(BigInt(fee.transactionFee));
    expectValueToApprove(fee, '1.25', 18);
  });

  it('prices the fee in USDC when selling USDC', async () => {
    const amount = '2500.5';
    const q = await quoteOk({ includeGasInfo: true, inTokenAddress: usdc, outTokenAddress: weth, amount });
    const fee = q.dataFeeTransaction!;
    expectFields(fee);
    expect(BigInt(fee.transactionFee)).toBe(BigInt(q.estimatedGas) * BigInt(fee.effectiveGasPrice));
    expectClose(Number(fee.tokenPrice), 1, 0.02);
    const feeInEther = Number(formatUnits(BigInt(fee.transactionFee), 18));
    // At most USDC's 6 decimals, and worth the fee in ether at about 3,000 USDC per ether.
    expect(fee.transactionFeeInToken).toMatch(/^\d+(\.\d{1,6})?$/);
    expectClose(Number(fee.transactionFeeInToken), feeInEther * 3_000, 0.03);
    expectValueToApprove(fee, amount, 6);
  });

  it('takes the fee in the native coin when selling the native pseudo-address', async () => {
    const q = await quoteOk({ includeGasInfo: true, inTokenAddress: NATIVE_LOWER, amount: '0.75' });
    const fee = q.dataFeeTransaction!;
    expectFields(fee);
    expectClose(Number(fee.tokenPrice), Number(fee.nativePrice), 1e-9);
    expect(parseUnits(fee.transactionFeeInToken!, 18)).toBe(BigInt(fee.transactionFee));
    expectValueToApprove(fee, '0.75', 18);
  });

  it('scales estimatedGas by gasMultiplier (rounded up) and prices the scaled gas', async () => {
    const base = BigInt((await quoteOk()).estimatedGas);
    for (const multiplier of ['NONE', 'LOW', 'MEDIUM', 'HIGH'] as const) {
      const q = await quoteOk({ includeGasInfo: true, gasMultiplier: multiplier });
      expect(q.gasMultiplier).toBe(multiplier);
      const scaled = ceilDiv(base * MULTIPLIER_PERCENT[multiplier], 100n);
      expect(q.estimatedGas).toBe(scaled.toString());
      const fee = q.dataFeeTransaction!;
      expect(BigInt(fee.transactionFee)).toBe(scaled * BigInt(fee.effectiveGasPrice));
      expect(parseUnits(fee.transactionFeeInToken!, 18)).toBe(BigInt(fee.transactionFee));
      expectValueToApprove(fee, '1', 18);
    }
  });
});
