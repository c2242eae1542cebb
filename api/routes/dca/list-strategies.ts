import { DCA_STRATEGY_LIST_STATUSES, type DcaStrategyStatus } from '../../../shared/domain/dca';
import type { DcaStrategyFilter } from '../../../shared/store/repositories/dca-repository';
import { defineRoute, type RawQuery, type RouteDefinition } from '../../http/route-definition';
import type { RouteDeps } from '../route-deps';
import { signingKeyOf } from '../../http/signing-key';
import { StreamedList } from '../../http/streamed-list';
import { strategyWithOrdersJson } from '../../../shared/domain/dca-json';
import { dcaStrategyWithOrdersSchema } from './dca-schemas';

const isListStatus = (value: string): value is DcaStrategyStatus =>
  (DCA_STRATEGY_LIST_STATUSES as readonly string[]).includes(value);

/**
 * The filter the query asks for, or null when it can match nothing: the spec answers a repeated filter or an
 * unknown status with an empty list rather than an error. Parameters other than the two filters are ignored.
 */
export function strategyFilterOf(query: RawQuery): DcaStrategyFilter | null {
  const { accountTo, status } = query;
  if (Array.isArray(accountTo) || Array.isArray(status)) return null;
  if (status !== undefined && !isListStatus(status)) return null;
  return { accountTo, status };
}

export function listStrategiesRoute(deps: RouteDeps): RouteDefinition {
  return defineRoute<undefined>({
    method: 'GET',
    path: '/dca-order/strategies',
    auth: 'signed',
    list: true,
    doc: {
      tag: 'DCA',
      summary: "List the signing key's DCA strategies",
      description:
        'Newest first, each with its `orders` oldest first; unpaginated; filters combine with AND. Unknown ' +
        'parameters are ignored; a repeated filter or an unknown status returns an empty array.',
      parameters: [
        {
          name: 'accountTo',
          in: 'query',
          required: false,
          schema: { type: 'string' },
          description: 'Maker address; exact, case-sensitive match (send the EIP-55 form used on create)',
        },
        {
          name: 'status',
          in: 'query',
          required: false,
          schema: { type: 'string', enum: [...DCA_STRATEGY_LIST_STATUSES] },
        },
      ],
      response: { type: 'array', items: dcaStrategyWithOrdersSchema },
      errors: [500],
    },
    async handle({ query, auth }) {
      const apiKey = signingKeyOf(auth);
      const filter = strategyFilterOf(query);
      if (!filter) return [];
      const strategies = await deps.store.dca.listStrategiesForKey(apiKey, filter);
      return new StreamedList(strategies, strategyWithOrdersJson);
    },
  });
}
