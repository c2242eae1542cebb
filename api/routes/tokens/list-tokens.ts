import type { SchemaObject } from 'ajv';
import type { ChainRegistry } from '../../../shared/chain/chain-registry';
import { ServiceError } from '../../../shared/domain/errors';
import type { TokensRepository } from '../../../shared/store/repositories/tokens-repository';
import { enabledChainOfQuery } from '../../http/enabled-chain';
import { defineRoute, type RouteDefinition } from '../../http/route-definition';
import type { RequestValidator } from '../../http/validator';

/** Only `chainId` is accepted, once, as a positive integer. */
export const listTokensQuery: SchemaObject = {
  type: 'object',
  required: ['chainId'],
  additionalProperties: false,
  properties: { chainId: { type: 'string', pattern: '^[1-9][0-9]{0,15}$' } },
};

export const tokenEntrySchema: SchemaObject = {
  type: 'object',
  required: ['address', 'symbol', 'decimals', 'name'],
  properties: {
    address: { type: 'string', description: 'Token address; the native coin is 0xeeee…eeee in lowercase' },
    symbol: { type: 'string', description: 'Not unique; may carry a suffix' },
    decimals: { type: 'integer' },
    name: { type: 'string' },
    logoURI: { type: 'string' },
  },
};

export function listTokensRoute(deps: {
  chains: ChainRegistry;
  tokens: TokensRepository;
  validator: RequestValidator;
}): RouteDefinition {
  return defineRoute<undefined>({
    method: 'GET',
    path: '/tokens',
    auth: 'signed',
    doc: {
      tag: 'Chains and tokens',
      summary: 'List the tokens of an enabled chain',
      parameters: [{ name: 'chainId', in: 'query', required: true, schema: { type: 'integer', minimum: 1 } }],
      response: {
        type: 'object',
        required: ['chainId', 'tokens'],
        properties: { chainId: { type: 'integer' }, tokens: { type: 'array', items: tokenEntrySchema } },
      },
      errors: [400, 500],
    },
    async handle({ query }) {
      const chainId = enabledChainOfQuery(deps.validator, deps.chains, listTokensQuery, query);
      let tokens;
      try {
        tokens = await deps.tokens.listByChain(chainId);
      } catch {
        throw new ServiceError('TOKEN_LIST_ERROR', 500, 'Could not load the token list');
      }
      return {
        chainId,
        tokens: tokens.map((t) => ({
          address: t.address,
          symbol: t.symbol,
          decimals: t.decimals,
          name: t.name,
          ...(t.logoURI ? { logoURI: t.logoURI } : {}),
        })),
      };
    },
  });
}
