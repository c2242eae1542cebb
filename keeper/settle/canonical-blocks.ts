import type { ChainClient } from '../../shared/chain/chain-client';

interface BlockLink {
  hash: string;
  parentHash: string;
}

/**
 * The recent canonical block hashes of one chain, as the settle stage last saw them, to tell cheaply from which
 * height a reorg changed the chain: usually one block read per new head (its parent is the hash we knew). When a
 * parent does not match, the walk goes down, block by block, to the height where the chain and our record agree
 * again; every height above it changed. Heights are kept for `windowBlocks` below the head.
 */
export class CanonicalBlocks {
  private readonly hashes = new Map<number, string>();
  private lowest: number | undefined;

  constructor(
    private readonly client: Pick<ChainClient, 'getBlock'>,
    private readonly windowBlocks: number,
  ) {}

  /** The canonical hash at a height, as last read; undefined when not known. */
  hashAt(height: number): string | undefined {
    return this.hashes.get(height);
  }

  /**
   * Reads the chain up to `head` and returns the lowest height whose block is not the one recorded before (a reorg
   * reached down to it), `undefined` when nothing known changed. The first call records the head and returns
   * `head - windowBlocks`: anything settled before may have changed while nobody looked.
   */
  async advance(head: number): Promise<number | undefined> {
    const first = this.lowest === undefined;
    const floor = Math.max(0, head - this.windowBlocks);
    // Heights above the head are gone (the chain went back): they changed.
    let changedFrom: number | undefined;
    for (const height of [...this.hashes.keys()]) {
      if (height > head) {
        this.hashes.delete(height);
        changedFrom = Math.min(changedFrom ?? height, height);
      }
    }
    let height = head;
    let link = await this.read(height);
    if (!link) return changedFrom;
    for (;;) {
      const known = this.hashes.get(height);
      if (known === link.hash) break;
      if (known !== undefined) changedFrom = height;
      this.hashes.set(height, link.hash);
      if (height <= floor) break;
      const parentKnown = this.hashes.get(height - 1);
      if (parentKnown === link.parentHash) break;
      if (parentKnown === undefined && (first || height - 1 < (this.lowest ?? height))) {
        // Below what was recorded: nothing to compare; a change that reached here reaches below too.
        if (changedFrom !== undefined) changedFrom = floor;
        break;
      }
      height -= 1;
      const parent = await this.read(height);
      if (!parent) break;
      link = parent;
    }
    for (const h of [...this.hashes.keys()]) if (h < floor) this.hashes.delete(h);
    this.lowest = Math.max(floor, Math.min(this.lowest ?? head, height));
    return first ? floor : changedFrom;
  }

  private async read(height: number): Promise<BlockLink | undefined> {
    const block = await this.client.getBlock(height);
    if (!block?.hash) return undefined;
    return { hash: block.hash, parentHash: block.parentHash };
  }
}
