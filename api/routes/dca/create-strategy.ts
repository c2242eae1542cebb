import { randomUUID } from 'node:crypto';
import type { DcaStrategy } from '../../../shared/domain/dca';
import { ValidationError } from '../../../shared/domain/errors';
import { defineRoute, type RouteDefinition } from '../../http/route-definition';
import { INVALID_BODY } from '../../http/validator';
import type { RouteDeps } from '../route-deps';
import { signingKeyOf } from '../../http/signing-key';
import { strategyJson } from '../../../shared/domain/dca-json';
import { createStrategyBody, dcaStrategySchema, type CreateStrategyBody } from './dca-schemas';
import { checkNewStrategy } from './strategy-rules';

export function createStrategyRoute(deps: RouteDeps): RouteDefinition {
  return defineRoute<CreateStrategyBody>({
    method: 'POST',
    path: '/dca-order/strategies',
    auth: 'signed',
    body: createStrategyBody,
    doc: {
      tag: 'DCA',
      summary: 'Create a DCA strategy',
      description:
        'Sells `totalAmount` of `tokenAddressFrom` for `tokenAddressTo` in `iterations` equal orders, one every ' +
        '`frequency` seconds, on one chain. `pair`, `signature` and `maxFeeBps` are accepted and not returned. ' +
        'Every success creates a new strategy: after a timeout, list strategies before retrying.',
      response: dcaStrategySchema,
      errors: [400, 500],
    },
    async handle({ body, auth }) {
      const apiKey = signingKeyOf(auth);
      const details = await checkNewStrategy(body, { chains: deps.chains, tokens: deps.store.tokens });
      if (details.length) throw new ValidationError(INVALID_BODY, details);
      const now = deps.now();
      const strategy: DcaStrategy = {
        id: randomUUID(),
        apiKey,
        accountTo: body.accountTo,
        chainIdFrom: body.chainIdFrom,
        chainIdTo: body.chainIdTo,
        tokenAddressFrom: body.tokenAddressFrom,
        tokenAddressTo: body.tokenAddressTo,
        tokenSymbolFrom: body.tokenSymbolFrom,
        tokenSymbolTo: body.tokenSymbolTo,
        pair: body.pair,
        totalAmount: body.totalAmount,
        iterations: body.iterations,
        frequency: body.frequency,
        slippage: body.slippage ?? 0,
        minPrice: body.minPrice ?? null,
        maxPrice: body.maxPrice ?? null,
        status: body.status ?? 'active',
        signature: body.signature,
        maxFeeBps: body.maxFeeBps ?? null,
        iterationsCreated: 0,
        version: 0,
        createdAt: now,
        updatedAt: now,
      };
      await deps.store.dca.insertStrategy(strategy);
      return strategyJson(strategy);
    },
  });
}
