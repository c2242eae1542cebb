import { getAddress } from 'ethers';

/** A JSON-RPC call to the chain. */
type Send = (method: string, params: unknown[]) => Promise<unknown>;

interface PoolTransaction {
  hash: string;
  nonce: string;
}

interface PoolContent {
  pending?: Record<string, Record<string, PoolTransaction>>;
  queued?: Record<string, Record<string, PoolTransaction>>;
}

/** A sender whose pooled transactions were re-imported, and the stranded one that made it necessary. */
export interface StrandedRescue {
  sender: string;
  stranded: string;
  nonce: number;
  reimported: number;
}

/** How often the pool is checked: one `txpool_status` call each time, the content only when something is queued. */
const CHECK_INTERVAL_MS = 2_000;

/**
 * anvil can strand a transaction: one added while the transaction before it (same sender) was being mined is
 * queued waiting for that one, which is already gone from the pool (foundry-rs/foundry#10122); nothing makes it
 * ready again, so neither it nor any later transaction of its sender is ever mined. The likely cause of the devnet
 * transactions "not mined within 120 s" seen in CI under load (the race itself was not reproduced on demand).
 *
 * A queued transaction whose nonce is exactly its sender's next nonce on-chain is such a one (a working pool has it
 * ready). Transactions queued behind a real gap (a nonce above the next) are left alone: tests make such gaps on
 * purpose. Checked twice in a row before acting, so a transaction in the middle of being added is never touched.
 */
export class StrandedTransactions {
  /** Hashes found stranded at the last check. */
  private suspects = new Set<string>();

  constructor(private readonly send: Send) {}

  /** Re-imports the pools of senders with a transaction stranded at this check and the one before. */
  async check(): Promise<StrandedRescue[]> {
    const status = (await this.send('txpool_status', [])) as { queued?: string };
    if (!status.queued || BigInt(status.queued) === 0n) {
      this.suspects.clear();
      return [];
    }
    const content = (await this.send('txpool_content', [])) as PoolContent;
    const found = new Set<string>();
    const rescues: StrandedRescue[] = [];
    for (const [sender, queued] of Object.entries(content.queued ?? {})) {
      const next = Number(await this.send('eth_getTransactionCount', [sender, 'latest']));
      const stranded = Object.values(queued).find((tx) => Number(tx.nonce) === next);
      if (!stranded) continue;
      found.add(stranded.hash);
      if (!this.suspects.has(stranded.hash)) continue;
      const pooled = [...Object.values(content.pending?.[sender] ?? {}), ...Object.values(queued)].sort(
        (a, b) => Number(a.nonce) - Number(b.nonce),
      );
      rescues.push({
        sender: getAddress(sender),
        stranded: stranded.hash,
        nonce: next,
        reimported: await this.reimport(sender, pooled),
      });
      found.delete(stranded.hash);
    }
    this.suspects = found;
    return rescues;
  }

  /**
   * Takes the sender's transactions out of the pool and sends them again in nonce order: each is validated anew
   * against the chain's state, which finds the stranded one ready. Returns how many went back in.
   */
  private async reimport(sender: string, pooled: PoolTransaction[]): Promise<number> {
    const raws: string[] = [];
    for (const tx of pooled) {
      const raw = (await this.send('eth_getRawTransactionByHash', [tx.hash])) as string | null;
      if (raw) raws.push(raw);
    }
    await this.send('anvil_removePoolTransactions', [sender]);
    let reimported = 0;
    for (const raw of raws) {
      try {
        await this.send('eth_sendRawTransaction', [raw]);
        reimported += 1;
      } catch {
        // Mined meanwhile (nonce too low) or back already: nothing is lost either way.
      }
    }
    return reimported;
  }
}

/**
 * Checks the pool every CHECK_INTERVAL_MS until the returned function is called. A failed check (the chain
 * stopping, a slow answer) is skipped; checks never overlap.
 */
export function watchStrandedTransactions(
  send: Send,
  onRescue: (rescue: StrandedRescue) => void,
  intervalMs: number = CHECK_INTERVAL_MS,
): () => void {
  const stranded = new StrandedTransactions(send);
  let checking = false;
  const timer = setInterval(() => {
    if (checking) return;
    checking = true;
    stranded
      .check()
      .then((rescues) => rescues.forEach(onRescue))
      .catch(() => undefined)
      .finally(() => {
        checking = false;
      });
  }, intervalMs);
  timer.unref();
  return () => clearInterval(timer);
}
