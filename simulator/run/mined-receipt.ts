import type { JsonRpcProvider } from 'ethers';

const POLL_MS = 20;
const TIMEOUT_MS = 60_000;

/**
 * Polls a transaction's receipt until the node has it and says whether it succeeded. anvil writes a receipt a moment
 * after it answers the send, and an idle instant-mining chain makes no further block: waiting for a block event (as
 * ethers' waitForTransaction does) can wait forever.
 */
export async function succeeded(provider: JsonRpcProvider, hash: string): Promise<boolean> {
  const deadline = Date.now() + TIMEOUT_MS;
  for (;;) {
    const receipt = (await provider.send('eth_getTransactionReceipt', [hash])) as { status: string } | null;
    if (receipt) return BigInt(receipt.status) === 1n;
    if (Date.now() > deadline)
      throw new Error(`transaction ${hash} was not mined within ${TIMEOUT_MS / 1000} s`);
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
  }
}
