import { ConflictError, NotFoundError } from '../../../shared/domain/errors';
import type { LimitOrder } from '../../../shared/domain/limit-order';
import type { PendingWriteResult } from '../../../shared/store/repositories/limit-orders-repository';

export const LIMIT_ORDER_NOT_FOUND = 'Limit order not found';

/** The order a PATCH or DELETE left behind, or the 404/409 the spec prescribes. */
export function orderFromWrite(result: PendingWriteResult): LimitOrder {
  switch (result.kind) {
    case 'updated':
      return result.order;
    case 'not-found':
      throw new NotFoundError(LIMIT_ORDER_NOT_FOUND);
    case 'conflict':
      throw new ConflictError(
        `Limit order can only be modified while pending (current status: ${result.status})`,
      );
  }
}
