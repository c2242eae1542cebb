import type { ChainRegistry } from '../../../shared/chain/chain-registry';
import { defineRoute, type RouteDefinition } from '../../http/route-definition';

export function listChainsRoute(chains: ChainRegistry): RouteDefinition {
  return defineRoute<undefined>({
    method: 'GET',
    path: '/chains',
    auth: 'signed',
    doc: {
      tag: 'Chains and tokens',
      summary: 'List the enabled chain IDs',
      description: 'Ascending. Query parameters are ignored.',
      response: {
        type: 'object',
        required: ['chainIds'],
        properties: { chainIds: { type: 'array', items: { type: 'integer' } } },
      },
    },
    async handle() {
      return { chainIds: chains.ids() };
    },
  });
}
