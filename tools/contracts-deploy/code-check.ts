import { getBytes, type Provider } from 'ethers';

/**
 * Whether `onChain` is `artifactRuntime` with its immutables filled in: same length, and every byte that differs
 * lies in a 32-byte word that the compiler left zero for an immutable. The artifacts carry no immutable
 * references, so the zero words stand for them; any other difference is other code.
 */
export function isRuntimeOf(onChain: Uint8Array, artifactRuntime: Uint8Array): boolean {
  if (onChain.length !== artifactRuntime.length) return false;
  for (let i = 0; i < onChain.length; i++) {
    if (onChain[i] === artifactRuntime[i]) continue;
    if (!inZeroWord(artifactRuntime, i)) return false;
  }
  return true;
}

/** Whether byte `i` belongs to some run of 32 zero bytes (an immutable's placeholder). */
function inZeroWord(code: Uint8Array, i: number): boolean {
  let start = i;
  while (start > 0 && code[start - 1] === 0 && i - start < 31) start--;
  let end = i;
  while (end + 1 < code.length && code[end + 1] === 0 && end - i < 31) end++;
  return code[i] === 0 && end - start + 1 >= 32;
}

/** Throws naming the contract unless its code on the chain is the artifact's. */
export async function checkDeployedCode(
  provider: Provider,
  name: string,
  address: string,
  artifactRuntime: string,
): Promise<void> {
  const code = await provider.getCode(address);
  if (!isRuntimeOf(getBytes(code), getBytes(artifactRuntime)))
    throw new Error(`${name} at ${address} is not the code this checkout compiled (contracts-abi/artifacts)`);
}
