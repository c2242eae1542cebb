import { triggeredAtBlock } from '../../../simulator/scenario/trigger-block';

// QUOTE per BASE (USDC per WETH) at blocks 0..6.
const prices = [3000, 3050, 3100, 3000, 2900, 2500, 3200];

describe('triggeredAtBlock', () => {
  it('triggers an order selling the base at the first block whose price reaches the trigger', () => {
    expect(triggeredAtBlock({ sellsBase: true, trigger: '3100' }, prices, 0)).toBe(2);
    expect(triggeredAtBlock({ sellsBase: true, trigger: '3099.99' }, prices, 0)).toBe(2);
    expect(triggeredAtBlock({ sellsBase: true, trigger: '3000' }, prices, 0)).toBe(0);
  });

  it('triggers an order selling the quote when 1 / price reaches the trigger', () => {
    // 1/2900 ≈ 0.000344827; 1/3000 ≈ 0.000333333.
    expect(triggeredAtBlock({ sellsBase: false, trigger: '0.00034' }, prices, 0)).toBe(4);
    expect(triggeredAtBlock({ sellsBase: false, trigger: '0.0004' }, prices, 0)).toBe(5);
    expect(triggeredAtBlock({ sellsBase: false, trigger: '0.0003333333333' }, prices, 0)).toBe(0);
  });

  it('looks from the block the order is placed at', () => {
    expect(triggeredAtBlock({ sellsBase: true, trigger: '3100' }, prices, 3)).toBe(6);
    expect(triggeredAtBlock({ sellsBase: true, trigger: '3100' }, prices, 6)).toBe(6);
    expect(triggeredAtBlock({ sellsBase: false, trigger: '0.00034' }, prices, 5)).toBe(5);
  });

  it('is null when the path never reaches the trigger after placement', () => {
    expect(triggeredAtBlock({ sellsBase: true, trigger: '3300' }, prices, 0)).toBeNull();
    expect(triggeredAtBlock({ sellsBase: true, trigger: '3100' }, prices, 7)).toBeNull();
    expect(triggeredAtBlock({ sellsBase: false, trigger: '0.0005' }, prices, 0)).toBeNull();
  });

  it('refuses a trigger that is not a positive number', () => {
    expect(() => triggeredAtBlock({ sellsBase: true, trigger: 'abc' }, prices, 0)).toThrow(
      new Error('trigger "abc" is not a number greater than 0'),
    );
    expect(() => triggeredAtBlock({ sellsBase: true, trigger: '0' }, prices, 0)).toThrow(
      new Error('trigger "0" is not a number greater than 0'),
    );
  });
});
