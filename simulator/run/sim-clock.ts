/**
 * The service's clock during a simulation run: the timestamp of the newest block the run mined, so that the keeper's
 * schedules (DCA frequency, order expiry, leases) and the api's checks run on chain time, and a day of 12 s blocks
 * takes as long as the blocks take to mine, not a day.
 */
export class SimulationClock {
  private ms: number;

  constructor(startSeconds: number) {
    this.ms = startSeconds * 1000;
  }

  /** Moves the clock to a block's timestamp; never backwards. */
  advanceTo(blockTimestampSeconds: number): void {
    this.ms = Math.max(this.ms, blockTimestampSeconds * 1000);
  }

  readonly now = (): number => this.ms;
}
