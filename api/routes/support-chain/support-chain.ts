import type { SchemaObject } from 'ajv';
import type { ChainRegistry } from '../../../shared/chain/chain-registry';
import { defineRoute, type RouteDefinition } from '../../http/route-definition';

export const supportChainBody: SchemaObject = {
  type: 'object',
  required: ['chainId'],
  properties: { chainId: { type: 'integer', minimum: 1, maximum: 9007199254740991 } },
};

export function supportChainRoute(chains: ChainRegistry): RouteDefinition {
  return defineRoute<{ chainId: number }>({
    method: 'POST',
    path: '/support-chain',
    auth: 'signed',
    body: supportChainBody,
    doc: {
      tag: 'Chains and tokens',
      summary: 'Check whether a chain is enabled',
      description:
        'A chain that is not enabled answers 200 with `data: false`. Other body fields are ignored.',
      response: { type: 'boolean' },
      errors: [400],
    },
    async handle({ body }) {
      return chains.isEnabled(body.chainId);
    },
  });
}
