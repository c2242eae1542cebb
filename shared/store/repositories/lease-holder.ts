/**
 * The lease moves every keeper repository whose rows a keeper claims offers under the same names (limit orders,
 * DCA iterations, cross-chain transfers; keeper transactions renew theirs with their items): the keeper's lease
 * sweep and its restart treat them all alike, whatever kind of work a row is.
 */
export interface LeaseHolder {
  /** Claims whose lease ran out with nothing signed go back to be claimed again; resolves their ids. */
  reclaimExpiredLeases(nowMs: number): Promise<string[]>;
  /** `owner`'s claims with nothing signed go back at once (a restart under the same KEEPER_ID); their ids. */
  releaseLeasesOf(owner: string, nowMs: number): Promise<string[]>;
  /** Extends `owner`'s lease on a row it holds; false when it does not hold it any more. */
  renewLease?(id: string, owner: string, leaseMs: number, nowMs: number): Promise<boolean>;
}
