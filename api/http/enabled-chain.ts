import type { SchemaObject } from 'ajv';
import type { ChainRegistry } from '../../shared/chain/chain-registry';
import { ValidationError } from '../../shared/domain/errors';
import type { RawQuery } from './route-definition';
import { INVALID_QUERY, type RequestValidator } from './validator';

/**
 * The `chainId` of a query (`GET /tokens`, `GET /transactions/{hash}`): `Invalid query parameters` when the schema
 * refuses the query, then `Chain N is not enabled` (both 400, as the spec's error table says).
 */
export function enabledChainOfQuery(
  validator: RequestValidator,
  chains: ChainRegistry,
  schema: SchemaObject,
  query: RawQuery,
): number {
  const { chainId: raw } = validator.assert<{ chainId: string }>(schema, query, INVALID_QUERY, 'query');
  const chainId = Number(raw);
  if (!chains.isEnabled(chainId)) {
    throw new ValidationError(`Chain ${chainId} is not enabled`, [
      { field: 'chainId', message: `Chain ${chainId} is not enabled` },
    ]);
  }
  return chainId;
}
