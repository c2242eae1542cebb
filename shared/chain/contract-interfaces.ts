import { Interface } from 'ethers';
import { loadArtifact, type ContractName } from '../../contracts-abi/artifacts';

/**
 * The contract interfaces the processes and tests encode and decode with, each built once on first use: importing
 * a module that talks to a contract reads no artifact file until it actually encodes a call.
 */

/** The ERC-20 functions we read and call on tokens that are not ours (human-readable ABI). */
export const ERC20_ABI = [
  'function name() view returns (string)',
  'function symbol() view returns (string)',
  'function decimals() view returns (uint8)',
  'function balanceOf(address) view returns (uint256)',
  'function allowance(address owner, address spender) view returns (uint256)',
  'function approve(address spender, uint256 amount) returns (bool)',
  'function transfer(address to, uint256 amount) returns (bool)',
] as const;

function once(build: () => Interface): () => Interface {
  let built: Interface | undefined;
  return () => (built ??= build());
}

const ofArtifact = (name: ContractName): (() => Interface) =>
  once(() => new Interface(loadArtifact(name).abi));

export const orderExecutorInterface = ofArtifact('OrderExecutor');
export const swapRouterInterface = ofArtifact('SwapRouter');
export const priceOracleInterface = ofArtifact('PriceOracle');
export const erc20Interface = once(() => new Interface(ERC20_ABI));
/**
 * OpenZeppelin v5's ERC-20 custom errors (ERC20InsufficientBalance, ERC20InsufficientAllowance, …), as our
 * TestToken and most new tokens revert with them.
 */
export const erc20ErrorsInterface = once(
  () => new Interface(loadArtifact('TestToken').abi.filter((f) => f.type === 'error')),
);
