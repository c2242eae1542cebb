/** Builds the enabled aggregator clients from the operator's settings. */
import type { ExternalAggregator } from './external-aggregator';
import type { ExternalAggregatorsConfig } from './external-aggregator-config';
import { createKyberswapAggregator } from './kyberswap-aggregator';
import { createOdosAggregator } from './odos-aggregator';
import { createOneInchAggregator } from './one-inch-aggregator';
import { createParaswapAggregator, type TokenDecimalsLookup } from './paraswap-aggregator';
import { createZeroExAggregator } from './zero-ex-aggregator';

export interface ExternalAggregatorDependencies {
  /** Token decimals by chain and address (ParaSwap's /prices requires them). */
  decimalsOf: TokenDecimalsLookup;
}

export function createExternalAggregators(
  config: ExternalAggregatorsConfig,
  dependencies: ExternalAggregatorDependencies,
): ExternalAggregator[] {
  return config.aggregators.map(({ id, ...settings }) => {
    switch (id) {
      case '0x':
        return createZeroExAggregator(settings);
      case '1inch':
        return createOneInchAggregator(settings);
      case 'paraswap':
        return createParaswapAggregator({ ...settings, decimalsOf: dependencies.decimalsOf });
      case 'odos':
        return createOdosAggregator(settings);
      case 'kyberswap':
        return createKyberswapAggregator(settings);
    }
  });
}
