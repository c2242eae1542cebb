import { ZeroAddress } from 'ethers';

/** The zero address: no token, no recipient, no exclusive relayer. */
export const ZERO_ADDRESS = ZeroAddress;

/**
 * The pseudo-address of a chain's native coin, as the spec's token lists and our SwapRouter (PathExecutor.NATIVE)
 * both spell it; compared in any casing.
 */
export const NATIVE_TOKEN_ADDRESS = '0xEeeeeEeeeEeEeeEeEeEeeEEEeeeeEeeeeeeeEEeE';

export const isNativeAddress = (address: string): boolean =>
  address.toLowerCase() === NATIVE_TOKEN_ADDRESS.toLowerCase();

/** The lowercase form token lists and price maps key the native coin on. */
export const NATIVE_TOKEN_KEY = NATIVE_TOKEN_ADDRESS.toLowerCase();
