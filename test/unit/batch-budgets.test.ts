import { AbiCoder, Interface } from 'ethers';
import { calldataGas, groupBudget } from '../../keeper/plan/batch-simulation';
import { l1DataGas } from '../../keeper/plan/l1-data-gas';
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

describe('L1 data gas on chains that count it in L2 gas', () => {
  const node = new Interface([
    'function gasEstimateL1Component(address to, bool contractCreation, bytes data) payable returns (uint64 gasEstimateForL1, uint256 baseFee, uint256 l1BaseFeeEstimate)',
  ]);
  const FROM = '0x00000000000000000000000000000000000000F1';
  const TO = '0x00000000000000000000000000000000000000E2';

  it("asks Arbitrum's NodeInterface for the L1 part of the batch's own calldata", async () => {
    const calls: { to?: string | null; data?: string | null }[] = [];
    const client = {
      call: async (tx: { to?: string | null; data?: string | null }) => {
        calls.push(tx);
        return AbiCoder.defaultAbiCoder().encode(
          ['uint64', 'uint256', 'uint256'],
          [123_456n, 10n ** 8n, 3n * 10n ** 9n],
        );
      },
    };
    expect(await l1DataGas(client, 42161, FROM, TO, '0xabcdef')).toBe(123_456n);
    expect(calls).toHaveLength(1);
    expect(calls[0]!.to).toBe('0x00000000000000000000000000000000000000C8');
    const [to, creation, data] = node.decodeFunctionData('gasEstimateL1Component', calls[0]!.data!);
    expect([String(to).toLowerCase(), creation, data]).toEqual([TO.toLowerCase(), false, '0xabcdef']);
  });

  it('counts nothing from a node without the NodeInterface (a devnet or fork with an Arbitrum chain id)', async () => {
    const client = { call: async () => '0x' };
    expect(await l1DataGas(client, 42161, FROM, TO, '0xabcdef')).toBe(0n);
  });

  it('asks nothing on chains that charge L1 data apart or not at all', async () => {
    const client = { call: jest.fn() };
    for (const chainId of [1, 10, 8453, 137, 56, 31337]) {
      expect(await l1DataGas(client, chainId, FROM, TO, '0x')).toBe(0n);
    }
    expect(client.call).not.toHaveBeenCalled();
  });
});
