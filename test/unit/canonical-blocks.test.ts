import { CanonicalBlocks } from '../../keeper/settle/canonical-blocks';

/** A chain of blocks by height; `fork(from, tag)` replaces every block from `from` up with other hashes. */
class FakeChain {
  private readonly blocks: string[] = [];
  reads = 0;

  constructor(length: number) {
    for (let h = 0; h < length; h++) this.blocks.push(`a${h}`);
  }

  extend(count: number, tag = 'a'): void {
    for (let i = 0; i < count; i++) this.blocks.push(`${tag}${this.blocks.length}`);
  }

  /** Drops blocks above `height` (evm_revert), then mines `count` new ones tagged `tag`. */
  rollBack(height: number, count: number, tag: string): void {
    this.blocks.length = height + 1;
    this.extend(count, tag);
  }

  get head(): number {
    return this.blocks.length - 1;
  }

  getBlock = async (height: unknown): Promise<{ hash: string; parentHash: string } | null> => {
    this.reads += 1;
    const h = Number(height);
    const hash = this.blocks[h];
    return hash === undefined ? null : { hash, parentHash: this.blocks[h - 1] ?? '0x' };
  };
}

function canonical(chain: FakeChain, window = 64): CanonicalBlocks {
  return new CanonicalBlocks(chain as never, window);
}

describe('CanonicalBlocks', () => {
  it('checks everything in the window on its first look, then one block read per new head', async () => {
    const chain = new FakeChain(200);
    const blocks = canonical(chain, 64);
    expect(await blocks.advance(chain.head)).toBe(chain.head - 64);
    for (let i = 0; i < 5; i++) {
      chain.extend(1);
      chain.reads = 0;
      expect(await blocks.advance(chain.head)).toBeUndefined();
      expect(chain.reads).toBe(1);
    }
    expect(blocks.hashAt(chain.head)).toBe(`a${chain.head}`);
  });

  it('links heads that skipped blocks without calling that a reorg', async () => {
    const chain = new FakeChain(100);
    const blocks = canonical(chain);
    await blocks.advance(chain.head);
    chain.extend(7);
    expect(await blocks.advance(chain.head)).toBeUndefined();
    expect(blocks.hashAt(chain.head - 3)).toBe(`a${chain.head - 3}`);
  });

  it('a chain rolled back and mined past its old head: the lowest height that changed', async () => {
    const chain = new FakeChain(100);
    const blocks = canonical(chain);
    await blocks.advance(chain.head);
    chain.extend(5);
    await blocks.advance(chain.head);
    // Back to block 101, then eight new blocks: 102 and up are new.
    chain.rollBack(101, 8, 'b');
    expect(await blocks.advance(chain.head)).toBe(102);
    expect(blocks.hashAt(102)).toBe('b102');
    chain.extend(1, 'b');
    expect(await blocks.advance(chain.head)).toBeUndefined();
  });

  it('a chain rolled back below its old head and seen before it grows back: the heights gone count as changed', async () => {
    const chain = new FakeChain(100);
    const blocks = canonical(chain);
    await blocks.advance(chain.head);
    chain.extend(4);
    await blocks.advance(chain.head);
    chain.rollBack(100, 1, 'c');
    expect(await blocks.advance(chain.head)).toBe(101);
    chain.extend(10, 'c');
    expect(await blocks.advance(chain.head)).toBeUndefined();
  });

  it('a reorg reaching below the first head seen counts from the bottom of the window (nothing to compare)', async () => {
    const chain = new FakeChain(100);
    const blocks = canonical(chain, 16);
    await blocks.advance(chain.head);
    chain.extend(2);
    await blocks.advance(chain.head);
    // Everything recorded (99 to 101) changed, and more below: the walk cannot tell where it started.
    chain.rollBack(90, 15, 'd');
    expect(await blocks.advance(chain.head)).toBe(chain.head - 16);
  });
});
