import {
  changesBounds,
  type DcaStrategyChange,
  type DcaStrategyChangeOutcome,
} from '../../../shared/domain/dca-strategy-change';
import { ValidationError } from '../../../shared/domain/errors';
import { defineRoute, type RouteDefinition } from '../../http/route-definition';
import { INVALID_BODY } from '../../http/validator';
import type { RouteDeps } from '../route-deps';
import { notActive, strategyNotFound } from './dca-errors';
import { signingKeyOf } from '../../http/signing-key';
import { strategyJson, type DcaStrategyJson } from '../../../shared/domain/dca-json';
import {
  dcaStrategySchema,
  strategyIdParam,
  updateStrategyBody,
  type UpdateStrategyBody,
} from './dca-schemas';
import { priceBoundsDetails, MIN_ABOVE_MAX } from './strategy-rules';

/** The change a valid body asks for; a body that asks for nothing is a 400, not a silent no-op. */
export function strategyChangeOf(body: UpdateStrategyBody): DcaStrategyChange {
  const change: DcaStrategyChange = {
    cancel: body.status === 'cancelled',
    minPrice: body.minPrice,
    maxPrice: body.maxPrice,
  };
  if (!change.cancel && !changesBounds(change)) {
    throw new ValidationError(INVALID_BODY, [
      { field: 'body', message: 'Must contain at least one of: status, minPrice, maxPrice' },
    ]);
  }
  const details = priceBoundsDetails(change);
  if (details.length) throw new ValidationError(INVALID_BODY, details);
  return change;
}

/** Bounds that cross only once merged with the stored ones: name the bound the client sent and the stored one. */
function crossedBounds(change: DcaStrategyChange, minPrice: number, maxPrice: number): ValidationError {
  const detail =
    change.minPrice !== undefined
      ? { field: 'minPrice', message: `${MIN_ABOVE_MAX} (stored maxPrice: ${maxPrice})` }
      : { field: 'maxPrice', message: `Must not be less than minPrice (stored minPrice: ${minPrice})` };
  return new ValidationError(INVALID_BODY, [detail]);
}

function answer(outcome: DcaStrategyChangeOutcome, change: DcaStrategyChange): DcaStrategyJson {
  switch (outcome.kind) {
    case 'not-found':
      throw strategyNotFound();
    case 'not-active':
      throw notActive(outcome.strategy.status);
    case 'bounds-crossed':
      throw crossedBounds(change, outcome.minPrice, outcome.maxPrice);
    case 'updated':
    case 'unchanged':
      return strategyJson(outcome.strategy);
  }
}

export function updateStrategyRoute(deps: RouteDeps): RouteDefinition {
  return defineRoute<UpdateStrategyBody>({
    method: 'PATCH',
    path: '/dca-order/strategies/:id',
    auth: 'signed',
    body: updateStrategyBody,
    doc: {
      tag: 'DCA',
      summary: 'Cancel a DCA strategy or change its price bounds',
      description:
        '`{"status": "cancelled"}` cancels an active strategy (irreversible): its pending orders are cancelled, ' +
        'orders already executing finish. Repeating the cancel returns the cancelled strategy unchanged. ' +
        '`minPrice`/`maxPrice` set new bounds (null clears one); after merging with the stored bounds minPrice ' +
        'must not exceed maxPrice. Any change to a finished strategy, or new bounds on a cancelled one, is ' +
        '409 CONFLICT and changes nothing.',
      parameters: [strategyIdParam],
      response: dcaStrategySchema,
      errors: [400, 404, 409, 500],
    },
    async handle({ body, params, auth }) {
      const apiKey = signingKeyOf(auth);
      const change = strategyChangeOf(body);
      const outcome = await deps.store.dca.changeStrategy(apiKey, params.id, change, deps.now());
      return answer(outcome, change);
    },
  });
}
