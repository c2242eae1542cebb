import { ConflictError, NotFoundError } from '../../../shared/domain/errors';

export const DCA_STRATEGY_NOT_FOUND = 'DCA strategy not found';
export const DCA_ORDER_NOT_FOUND = 'DCA order not found';

export const strategyNotFound = (): NotFoundError => new NotFoundError(DCA_STRATEGY_NOT_FOUND);
export const orderNotFound = (): NotFoundError => new NotFoundError(DCA_ORDER_NOT_FOUND);

export const notActive = (status: string): ConflictError =>
  new ConflictError(`DCA strategy can only be modified while active (current status: ${status})`);
