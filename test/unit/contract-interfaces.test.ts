import { Interface } from 'ethers';
import { loadArtifact } from '../../contracts-abi/artifacts';
import {
  erc20ErrorsInterface,
  erc20Interface,
  orderExecutorInterface,
  swapRouterInterface,
} from '../../shared/chain/contract-interfaces';

describe('contract interfaces', () => {
  it('builds each interface once and hands out the same instance', () => {
    for (const accessor of [
      orderExecutorInterface,
      swapRouterInterface,
      erc20Interface,
      erc20ErrorsInterface,
    ]) {
      expect(accessor()).toBe(accessor());
    }
  });

  it('are the committed artifacts’ ABIs', () => {
    for (const [accessor, name] of [
      [orderExecutorInterface, 'OrderExecutor'],
      [swapRouterInterface, 'SwapRouter'],
    ] as const) {
      const committed = new Interface(loadArtifact(name).abi);
      expect(accessor().format()).toEqual(committed.format());
    }
  });

  it('decodes the OpenZeppelin v5 funding errors and holds nothing but errors', () => {
    const iface = erc20ErrorsInterface();
    expect(iface.fragments.every((f) => f.type === 'error')).toBe(true);
    const data = iface.encodeErrorResult('ERC20InsufficientBalance', [`0x${'11'.repeat(20)}`, 1n, 2n]);
    expect(iface.parseError(data)?.name).toBe('ERC20InsufficientBalance');
  });

  it('encodes the ERC-20 reads the swap dry run makes', () => {
    expect(erc20Interface().getFunction('allowance')?.selector).toBe('0xdd62ed3e');
    expect(erc20Interface().getFunction('balanceOf')?.selector).toBe('0x70a08231');
  });
});
