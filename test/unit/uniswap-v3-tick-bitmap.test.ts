import { MAX_TICK, MIN_TICK } from '../../shared/routing/math/tick-math';
import {
  bitmapWords,
  ticksMatchLiquidity,
  ticksOfWord,
} from '../../shared/routing/sources/uniswap-v3-source';

describe('Uniswap V3 tick bitmap reading', () => {
  it.each([
    [1, -3466, 3465],
    [10, -347, 346],
    [60, -58, 57],
    [200, -18, 17],
  ])('covers every usable tick at spacing %d with words %d..%d', (spacing, first, last) => {
    const words = bitmapWords(spacing);
    expect([words[0], words.at(-1), words.length]).toEqual([first, last, last - first + 1]);
    const minUsable = Math.ceil(MIN_TICK / spacing);
    const maxUsable = Math.floor(MAX_TICK / spacing);
    // word = compressed >> 8, as TickBitmap.position computes it.
    expect(minUsable >> 8).toBe(first);
    expect(maxUsable >> 8).toBe(last);
  });

  it('turns set bits into tick indices, negative words included', () => {
    expect(ticksOfWord(0, 0n, 60)).toEqual([]);
    expect(ticksOfWord(0, 0b1011n, 60)).toEqual([0, 60, 180]);
    expect(ticksOfWord(-1, (1n << 255n) | 1n, 10)).toEqual([-2560, -10]);
    expect(ticksOfWord(-58, 1n << 59n, 60)).toEqual([(-58 * 256 + 59) * 60]);
  });

  describe('ticksMatchLiquidity: a tick set found from Mint logs checked against the pool', () => {
    // Positions [-600, 600) with 100 and [-120, 60) with 30, price at tick 0: in range 130.
    const full = [
      { index: -600, liquidityNet: 100n },
      { index: -120, liquidityNet: 30n },
      { index: 60, liquidityNet: -30n },
      { index: 600, liquidityNet: -100n },
    ];

    it('accepts the whole set, at any tick, the tick at a boundary counting as crossed upwards', () => {
      expect(ticksMatchLiquidity(full, 0, 130n)).toBe(true);
      expect(ticksMatchLiquidity(full, -121, 100n)).toBe(true);
      expect(ticksMatchLiquidity(full, -120, 130n)).toBe(true);
      expect(ticksMatchLiquidity(full, 60, 100n)).toBe(true);
      expect(ticksMatchLiquidity(full, 700, 0n)).toBe(true);
      expect(ticksMatchLiquidity([], 0, 0n)).toBe(true);
    });

    it('refuses a set with one tick missing, or a whole in-range position missing', () => {
      for (let i = 0; i < full.length; i++) {
        expect(
          ticksMatchLiquidity(
            full.filter((_, j) => j !== i),
            0,
            130n,
          ),
        ).toBe(false);
      }
      expect(ticksMatchLiquidity([full[0]!, full[3]!], 0, 130n)).toBe(false);
      expect(ticksMatchLiquidity(full, 0, 131n)).toBe(false);
    });
  });
});
