import type { TransferToken } from '../../shared/bridges/cross-chain-provider';
import { FillCaps, type CapCheck, type FillCapLimits } from '../../keeper/relay/fill-caps';

/**
 * The relayer's caps on what it pays out: per fill, per token and chain per hour (summed by the store), and a floor
 * per chain.
 */

const NOW = 1_800_000_000_000;
const USD = 1_000_000n;
const USDC: TransferToken = {
  chainId: 137,
  address: '0x3c499c542cEF5E3811e1192ce70d8cC03d5c3359',
  symbol: 'USDC',
  decimals: 6,
  native: false,
};
const WETH: TransferToken = {
  chainId: 137,
  address: '0x7ceB23fD6bC0adD59E62ac25578270cFf1b9f619',
  symbol: 'WETH',
  decimals: 18,
  native: false,
};

/** The store's hourly sum, per (chain, lowercase token): base units sent since the asked time. */
class FakeTransfers {
  sent = new Map<string, bigint>();
  readonly asked: Array<{ chainId: number; token: string; sinceMs: number }> = [];

  async sumOutputSentSince(chainId: number, token: string, sinceMs: number): Promise<bigint> {
    this.asked.push({ chainId, token, sinceMs });
    return this.sent.get(`${chainId}:${token.toLowerCase()}`) ?? 0n;
  }
}

describe('the relayer fill caps', () => {
  let transfers: FakeTransfers;
  let limits: FillCapLimits;
  let caps: FillCaps;

  beforeEach(() => {
    transfers = new FakeTransfers();
    limits = { maxFillUsd: 250_000, maxHourlyUsd: 1_000_000, inventoryFloorUsd: () => 0 };
    caps = new FillCaps({ transfers, limits, now: () => NOW });
  });

  const usdc = (amount: bigint, balance = 1_000_000n * USD): CapCheck => ({
    destinationChainId: 137,
    token: USDC,
    amount,
    usdValue: amount,
    balance,
  });

  it('lets a fill within every cap through', async () => {
    expect(await caps.check(usdc(250_000n * USD))).toBeUndefined();
    expect(transfers.asked).toEqual([{ chainId: 137, token: USDC.address, sinceMs: NOW - 3_600_000 }]);
  });

  it('holds one fill over the cap per fill, before asking the store', async () => {
    const hold = await caps.check(usdc(250_000n * USD + 1n));
    expect(hold).toEqual({
      reason: 'max_fill',
      message: '250000.000001 USD of USDC is over the 250000 USD cap per fill',
    });
    expect(transfers.asked).toEqual([]);
  });

  it('counts the hour of fills of the token on the chain, this one included, at its price', async () => {
    // 3 WETH at 3,000 USD: 9,000 USD; 330 WETH already sent this hour is 990,000 USD.
    const weth: CapCheck = {
      destinationChainId: 137,
      token: WETH,
      amount: 3n * 10n ** 18n,
      usdValue: 9_000n * USD,
      balance: 400n * 10n ** 18n,
    };
    transfers.sent.set(`137:${WETH.address.toLowerCase()}`, 330n * 10n ** 18n);
    expect(await caps.check(weth)).toBeUndefined();
    transfers.sent.set(`137:${WETH.address.toLowerCase()}`, 331n * 10n ** 18n);
    expect(await caps.check(weth)).toEqual({
      reason: 'max_hourly',
      message: '1002000 USD of WETH on chain 137 in the last hour with it, over the 1000000 USD cap',
    });
    // Another token's hour is its own.
    expect(await caps.check(usdc(100n * USD))).toBeUndefined();
  });

  it("keeps the chain's inventory floor, the chain's own or the default", async () => {
    limits.inventoryFloorUsd = (chainId) => (chainId === 137 ? 50_000 : 10_000);
    expect(await caps.check(usdc(50_000n * USD, 100_000n * USD))).toBeUndefined();
    expect(await caps.check(usdc(50_000n * USD + 1n, 100_000n * USD))).toEqual({
      reason: 'inventory_floor',
      message: 'it would leave 49999.999999 USD of USDC on chain 137, under the 50000 USD floor',
    });
    // Already under the floor: nothing more goes out.
    expect((await caps.check(usdc(1n * USD, 40_000n * USD)))?.reason).toBe('inventory_floor');
  });

  it('never holds on a floor of 0, whatever is left', async () => {
    expect(await caps.check(usdc(100n * USD, 100n * USD))).toBeUndefined();
  });
});
