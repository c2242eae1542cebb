import type { Logger } from '../../shared/log/create-logger';
import type { OrderDiagnoses } from '../diagnose/order-diagnoses';
import type { KeeperMetrics } from '../keeper-metrics';
import type { OrderMoves } from '../order-moves';
import { workOf, type OrderWorks } from '../order-work';
import type { ExecutionOrder } from '../plan/execution-order';
import type { RowGuard } from '../row-guard';
import type { Selection } from '../select/select-stage';
import type { TokenDecimals } from './read-claimed';

export interface ClaimStageDeps {
  chainId: number;
  works: OrderWorks;
  moves: OrderMoves;
  guard: RowGuard;
  metrics: KeeperMetrics;
  tokens: TokenDecimals;
  owner: string;
  leaseMs: number;
  log: Logger;
  /** Claimed orders are judged anew by the stages after the claim. */
  diagnoses?: OrderDiagnoses;
}

/**
 * Takes the selected orders under this keeper's lease, each kind through its work, and reads them in execution
 * terms. What the claim returns is the truth: an order PATCHed or cancelled since its selection is not among it.
 * A claimed order that cannot even be read (unlisted token, malformed amount) fails with its final reason.
 */
export class ClaimStage {
  constructor(private readonly deps: ClaimStageDeps) {}

  async run(selection: Selection, head: number, now: number): Promise<ExecutionOrder[]> {
    const { deps } = this;
    const ctx = { owner: deps.owner, leaseMs: deps.leaseMs, now, triggerBlock: head, tokens: deps.tokens };
    const orders: ExecutionOrder[] = [];
    for (const [kind, refs] of selection) {
      const claimed = await workOf(deps.works, kind).claim(refs, ctx);
      const taken = claimed.orders.length + claimed.unreadable.length;
      deps.metrics.ordersClaimed(deps.chainId, kind, taken);
      deps.metrics.claimsLost(deps.chainId, kind, refs.length - taken);
      orders.push(...claimed.orders);
      deps.diagnoses?.claimed(
        kind,
        [...claimed.orders, ...claimed.unreadable].map((o) => o.id),
      );
      await deps.guard.each(
        (u) => u.kind,
        claimed.unreadable,
        (u) => u.id,
        async (u) => {
          deps.log.info({ orderId: u.id, reason: u.reason, detail: u.detail }, 'order cannot execute');
          await deps.moves.fail({ kind: u.kind, id: u.id, attemptNumber: 0 }, u.reason);
        },
      );
    }
    return orders;
  }
}
