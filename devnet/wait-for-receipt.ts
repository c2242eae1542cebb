import { setTimeout as sleep } from 'node:timers/promises';
import type { Provider, TransactionReceipt, TransactionResponse } from 'ethers';

/**
 * The receipt of a transaction the node took, polled until it is there. Not ethers' `waitForTransaction`: after one
 * look it waits for the *next* block event, and an instant-mining chain that mined the transaction a moment after
 * that look (anvil writes receipts asynchronously) and then stays idle never sends one, so it times out.
 */
export async function waitForReceipt(
  provider: Pick<Provider, 'getTransactionReceipt'>,
  hash: string,
  timeoutMs = 30_000,
): Promise<TransactionReceipt> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const receipt = await provider.getTransactionReceipt(hash);
    if (receipt) return receipt;
    if (Date.now() > deadline) throw new Error(`no receipt for ${hash} within ${timeoutMs} ms`);
    await sleep(25);
  }
}

/**
 * As waitForReceipt, and throws unless the transaction succeeded (what ethers' `wait()` does on a revert). Waits up
 * to 120 s by default: long enough for a devnet with slow interval blocks.
 */
export async function waitForSuccess(
  provider: Pick<Provider, 'getTransactionReceipt'>,
  hash: string,
  what: string,
  timeoutMs = 120_000,
): Promise<TransactionReceipt> {
  const receipt = await waitForReceipt(provider, hash, timeoutMs);
  if (receipt.status !== 1) throw new Error(`${what} reverted (${hash})`);
  return receipt;
}

/**
 * A sent transaction's receipt once it succeeded, by waitForSuccess: what `(await tx).wait()` gives, without
 * wait()'s race on an idle instant-mining chain.
 */
export async function mined(
  tx: Promise<TransactionResponse> | TransactionResponse,
  what = 'transaction',
  timeoutMs = 120_000,
): Promise<TransactionReceipt> {
  const sent = await tx;
  return waitForSuccess(sent.provider, sent.hash, what, timeoutMs);
}
