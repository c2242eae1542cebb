import type { ChainAvailability } from './chain-availability';
import type { ReferencePricePublisher } from './reference-price-publisher';

/**
 * The end of a chain's tick: a new block's reference prices (read by the api's limit-order creation) are
 * published after the block's batches went out. A stale state publishes nothing, its prices may be long gone:
 * the block is published once the state is fresh again.
 */
export class PublishStage {
  /** A new block's reference prices are still to be published (deferred while the state is stale). */
  private unpublished = false;

  constructor(
    private readonly publisher: ReferencePricePublisher,
    private readonly availability: ChainAvailability,
    private readonly now: () => number,
  ) {}

  async run(head: number, newBlock: boolean): Promise<void> {
    if (newBlock) this.unpublished = true;
    if (!this.unpublished || this.availability.stale(this.now())) return;
    this.unpublished = false;
    await this.publisher.publish(head);
  }
}
