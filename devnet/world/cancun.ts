import type { JsonRpcProvider } from 'ethers';

/** Creation code running Cancun's TSTORE and MCOPY, then STOP: PUSH0 PUSH0 TSTORE PUSH0 PUSH0 PUSH0 MCOPY STOP. */
const CANCUN_PROBE = '0x5f5f5d5f5f5f5e00';

/**
 * Whether the chain runs Cancun's opcodes: anvil does, ganache (Shanghai at most) does not. The published builds of
 * Across's SpokePool (MCOPY) and Uniswap V4's PoolManager (transient storage) need them.
 */
export async function supportsCancun(provider: JsonRpcProvider): Promise<boolean> {
  try {
    await provider.call({ data: CANCUN_PROBE });
    return true;
  } catch {
    return false;
  }
}
