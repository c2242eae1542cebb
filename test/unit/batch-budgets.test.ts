import { calldataGas, groupBudget } from '../../keeper/plan/batch-simulation';
import { GAS_PER_ORDER } from '../../shared/routing/execution-fee';

describe('a batch transaction’s gas from its simulation', () => {
  it('counts calldata as EIP-2028 prices it, with EIP-7623’s floor beside it', () => {
    expect(calldataGas('0x')).toEqual({ intrinsic: 21_000n, floor: 21_000n });
    // One zero byte (4 gas; 1 token) and one non-zero byte (16 gas; 4 tokens).
    expect(calldataGas('0x00ff')).toEqual({ intrinsic: 21_020n, floor: 21_050n });
    expect(calldataGas('0x' + '00'.repeat(100) + '01'.repeat(100))).toEqual({
      intrinsic: 21_000n + 400n + 1_600n,
      floor: 21_000n + 10n * (100n + 400n),
    });
  });

  it('budgets a group a fifth over what the simulation saw it use, plus its route estimate and slack', () => {
    expect(groupBudget(1_000_000n, 40, 150_000n)).toBe(1_200_000n + 150_000n + 20_000n);
    // A group the simulation never settled (its orders failed the checks there) gets the per-order model.
    expect(groupBudget(0n, 3, 150_000n)).toBe(GAS_PER_ORDER * 3n + 2n * 150_000n);
  });
});
