import { InventoryBook, type Holding } from '../../keeper/relay/inventory-book';
import { retryDelayMs } from '../../keeper/relay/relay-context';

const NOW = 1_800_000_000_000;
const MARKS = { lowPercent: 50, highPercent: 150 };

function holding(chainId: number, units: bigint, decimals = 6, readAt = NOW): Holding {
  return { chainId, token: `0x${chainId.toString(16).padStart(40, '0')}`, decimals, units, readAt };
}

describe('the relayer inventory book', () => {
  it('moves from a chain above the high watermark to one under the low, up to the average', () => {
    const book = new InventoryBook();
    book.record('USDC', holding(1, 1_000_000n));
    book.record('USDC', holding(137, 100_000n));
    // Average 550,000: 137 lacks 450,000, 1 spares 450,000.
    expect(book.moveFrom(1, 'USDC', MARKS, NOW)).toMatchObject({ units: 450_000n, to: { chainId: 137 } });
    // Never from the poor chain.
    expect(book.moveFrom(137, 'USDC', MARKS, NOW)).toBeUndefined();
  });

  it('takes no more than brings the poorest to the average, nor the giver below it', () => {
    const book = new InventoryBook();
    book.record('USDC', holding(1, 3_100_000n));
    book.record('USDC', holding(10, 2_800_000n));
    book.record('USDC', holding(137, 100_000n));
    // Average 2,000,000: chain 1 (over 150% of it) spares 1,100,000 and 137 lacks 1,900,000.
    expect(book.moveFrom(1, 'USDC', MARKS, NOW)?.units).toBe(1_100_000n);
  });

  it('compares chains whose tokens have other decimals and answers in the giver’s units', () => {
    const book = new InventoryBook();
    book.record('USDC', holding(56, 1_000_000n * 10n ** 12n, 18));
    book.record('USDC', holding(1, 100_000n, 6));
    expect(book.moveFrom(56, 'USDC', MARKS, NOW)?.units).toBe(450_000n * 10n ** 12n);
  });

  it('leaves balanced or stale inventories alone', () => {
    const book = new InventoryBook();
    book.record('ETH', holding(1, 1_000n));
    book.record('ETH', holding(137, 600n));
    expect(book.moveFrom(1, 'ETH', MARKS, NOW)).toBeUndefined();
    book.record('DAI', holding(1, 1_000_000n));
    book.record('DAI', holding(137, 1n, 6, NOW - 120_000));
    expect(book.moveFrom(1, 'DAI', MARKS, NOW)).toBeUndefined();
    expect(book.moveFrom(1, 'WBTC', MARKS, NOW)).toBeUndefined();
  });

  it('backs a transfer off 2 s doubling per attempt, a minute at most', () => {
    expect([0, 1, 2, 5, 20].map(retryDelayMs)).toEqual([2_000, 4_000, 8_000, 60_000, 60_000]);
  });
});
