import { LIMIT_ORDER_STATUSES, type LimitOrderStatus } from '../../../shared/domain/limit-order';
import type { LimitOrderFilters } from '../../../shared/store/repositories/limit-orders-repository';
import { defineRoute, type RawQuery, type RouteDefinition } from '../../http/route-definition';
import type { RouteDeps } from '../route-deps';
import { limitOrderResponse } from '../../../shared/domain/limit-order-json';
import { signingKeyOf } from '../../http/signing-key';
import { StreamedList } from '../../http/streamed-list';
import { limitOrderSchema, listLimitOrdersParameters } from './schemas';

const NUMERIC = /^[0-9]{1,16}$/;

/**
 * The filters the query asks for, or undefined when it cannot match any order: the spec answers a repeated
 * parameter, an unknown status or a non-numeric chainId with an empty list, never an error.
 */
export function filtersOf(query: RawQuery): LimitOrderFilters | undefined {
  const { status, chainId, accountTo } = query;
  if (Array.isArray(status) || Array.isArray(chainId) || Array.isArray(accountTo)) return undefined;
  const filters: LimitOrderFilters = {};
  if (status !== undefined) {
    if (!(LIMIT_ORDER_STATUSES as readonly string[]).includes(status)) return undefined;
    filters.status = status as LimitOrderStatus;
  }
  if (chainId !== undefined) {
    if (!NUMERIC.test(chainId) || !Number.isSafeInteger(Number(chainId))) return undefined;
    filters.chainId = Number(chainId);
  }
  if (accountTo !== undefined) filters.accountTo = accountTo;
  return filters;
}

export function listLimitOrdersRoute(deps: RouteDeps): RouteDefinition {
  return defineRoute<undefined>({
    method: 'GET',
    path: '/limit-order',
    auth: 'signed',
    list: true,
    doc: {
      tag: 'Limit orders',
      summary: "List the signing key's limit orders",
      description:
        'Every order of the key, cancelled ones included, unpaginated. Filters combine with AND; unknown ' +
        'parameters are ignored; a repeated parameter, an unknown status or a non-numeric chainId returns an ' +
        'empty array.',
      parameters: listLimitOrdersParameters,
      response: { type: 'array', items: limitOrderSchema },
      errors: [500],
    },
    async handle({ query, auth }) {
      const apiKey = signingKeyOf(auth);
      const filters = filtersOf(query);
      if (!filters) return [];
      const orders = await deps.store.limitOrders.listForKey(apiKey, filters);
      return new StreamedList(orders, limitOrderResponse);
    },
  });
}
