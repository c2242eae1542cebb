import { keccak256, toUtf8Bytes } from 'ethers';
import { ChainRegistry } from '../../shared/chain/chain-registry';
import type { ChainConfig } from '../../shared/config/config-schema';
import type { CrossChainRequest, TransferToken } from '../../shared/bridges/cross-chain-provider';
import { crossChainDexHash } from '../../shared/bridges/dex-hash';
import { sourceAmounts } from '../../shared/bridges/entry-call';
import { depositClocks, SPOKE_POOL_FILL_DEADLINE_BUFFER } from '../../shared/bridges/intent/intent-deposit';
import { rescale, TransferPricing } from '../../shared/bridges/transfer-pricing';
import { transferSeconds } from '../../shared/bridges/transfer-time';

/** The pure parts of the devnet providers' quoting: identifiers, fees, clocks, asset identity and decimals. */

const chain = (chainId: number, nativeSymbol: string, wrappedNative: string): ChainConfig => ({
  chainId,
  name: `chain ${chainId}`,
  rpcUrls: [],
  nativeSymbol,
  nativeDecimals: 18,
  wrappedNative,
  crossChainSource: true,
});
const WETH_1 = '0xC02aaA39b223FE8D0A0e5C4F27eAD9083C756Cc2';
const WPOL_137 = '0x0d500B1d8E8eF31E21C99d1Db9A6444d3ADf1270';
const chains = new ChainRegistry([chain(1, 'ETH', WETH_1), chain(137, 'POL', WPOL_137)]);
const token = (
  chainId: number,
  symbol: string,
  address: string,
  decimals = 18,
  native = false,
): TransferToken => ({
  chainId,
  symbol,
  address,
  decimals,
  native,
});
const NATIVE = '0xeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeee';

describe('crossChainDexHash', () => {
  it('is 0x + keccak256("tas-cross-chain:" + id), lowercase, one per provider', () => {
    for (const id of ['tas-intent', 'tas-canonical', 'lifi']) {
      const hash = crossChainDexHash(id);
      expect(hash).toBe(keccak256(toUtf8Bytes(`tas-cross-chain:${id}`)).toLowerCase());
      expect(hash).toMatch(/^0x[0-9a-f]{64}$/);
    }
    expect(new Set(['tas-intent', 'tas-canonical', 'lifi'].map(crossChainDexHash)).size).toBe(3);
  });
});

describe('sourceAmounts', () => {
  const request = (amountIn: bigint, feeBps: number, recipient?: string): CrossChainRequest => ({
    fromChainId: 1,
    toChainId: 137,
    tokenIn: token(1, 'USDC', '0x1', 6),
    tokenOut: token(137, 'USDC', '0x2', 6),
    amountIn,
    slippage: '0.5',
    protocolFeePips: 1500,
    integratorFeeBps: feeBps,
    ...(recipient ? { integratorFeeRecipient: recipient } : {}),
  });

  it('takes both fees from the whole input, each rounded down, and bridges the rest', () => {
    const recipient = '0x15d34AAf54267DB7D7c367839AAf71A00a2C6A65';
    expect(sourceAmounts(request(1_000_001n, 30, recipient))).toEqual({
      fees: { protocolFee: 1500n, integratorFee: 3000n, integratorFeeRecipient: recipient },
      bridged: 1_000_001n - 4500n,
    });
  });

  it('names no integrator recipient when there is no integrator fee', () => {
    const { fees } = sourceAmounts(request(1_000_000n, 0, '0x15d34AAf54267DB7D7c367839AAf71A00a2C6A65'));
    expect(fees.integratorFee).toBe(0n);
    expect(fees.integratorFeeRecipient).toBe('0x0000000000000000000000000000000000000000');
  });
});

describe('depositClocks', () => {
  it('quotes at the origin time and sets the fill deadline on the later of the two clocks', () => {
    expect(depositClocks(1_000, 1_200, 600)).toEqual({ quoteTimestamp: 1_000, fillDeadline: 1_800 });
    expect(depositClocks(1_500, 1_200, 600)).toEqual({ quoteTimestamp: 1_500, fillDeadline: 2_100 });
  });

  it('never sets a fill deadline the origin SpokePool refuses', () => {
    const far = depositClocks(1_000, 1_000 + 2 * SPOKE_POOL_FILL_DEADLINE_BUFFER, 600);
    expect(far.fillDeadline).toBe(1_000 + SPOKE_POOL_FILL_DEADLINE_BUFFER);
  });
});

describe('TransferPricing without a market', () => {
  const pricing = new TransferPricing({ chains, tokensOf: () => [] });

  it('knows one asset under its names on both chains', () => {
    const eth = token(1, 'ETH', NATIVE, 18, true);
    const weth1 = token(1, 'WETH', WETH_1);
    const weth137 = token(137, 'WETH', '0x7ceB23fD6bC0adD59E62ac25578270cFf1b9f619');
    const pol = token(137, 'POL', NATIVE, 18, true);
    const wpol = token(137, 'WPOL', WPOL_137);
    expect(pricing.sameAsset(eth, weth137)).toBe(true);
    expect(pricing.sameAsset(weth1, weth137)).toBe(true);
    expect(pricing.sameAsset(pol, wpol)).toBe(true);
    expect(pricing.sameAsset(eth, pol)).toBe(false);
    expect(pricing.sameAsset(token(1, 'USDC', '0x1', 6), token(137, 'USDC', '0x2', 6))).toBe(true);
    expect(pricing.sameAsset(token(1, 'USDC', '0x1', 6), token(137, 'USDT', '0x3', 6))).toBe(false);
  });

  it('converts an asset to itself by its decimals only, and nothing else without a market', () => {
    const usdc6 = token(1, 'USDC', '0x1', 6);
    const usdc18 = token(137, 'USDC', '0x2', 18);
    expect(pricing.convert(1_234_567n, usdc6, usdc18)).toBe(1_234_567n * 10n ** 12n);
    expect(pricing.convert(1_234_567_890_123_456_789n, usdc18, usdc6)).toBe(1_234_567n);
    expect(pricing.convert(10n ** 18n, token(1, 'ETH', NATIVE, 18, true), usdc18)).toBeUndefined();
    expect(pricing.nativeCostIn(137, 5n, token(137, 'WPOL', WPOL_137))).toBe(5n);
    expect(pricing.nativeCostIn(137, 5n, usdc18)).toBeUndefined();
  });

  it('rescales down by truncation', () => {
    expect(rescale(1_999_999n, 6, 0)).toBe(1n);
    expect(rescale(7n, 0, 3)).toBe(7_000n);
  });
});

describe('transferSeconds', () => {
  it('waits the confirmations on the origin, then one destination block', () => {
    expect(transferSeconds({ blockTimeSeconds: 12 }, { blockTimeSeconds: 2 }, 3)).toBe(38);
    expect(transferSeconds({}, {}, 1)).toBe(4);
  });
});
