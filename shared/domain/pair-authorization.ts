/**
 * The maker's pair authorization as the OrderExecutor checks it (contracts-abi/src/Eip712Domain.sol): one EIP-712
 * signature per maker and token pair serves every limit order and DCA strategy of that pair.
 */

/** The EIP-712 domain, completed per chain with its chainId and the OrderExecutor as verifyingContract. */
export const PAIR_AUTHORIZATION_DOMAIN = { name: 'TradeAggregationService', version: '1' } as const;

export const PAIR_AUTHORIZATION_TYPES = {
  PairAuthorization: [
    { name: 'maker', type: 'address' },
    { name: 'tokenIn', type: 'address' },
    { name: 'tokenOut', type: 'address' },
  ],
};

/** The domain a maker signs against on one chain. */
export function pairAuthorizationDomain(
  chainId: number,
  orderExecutor: string,
): typeof PAIR_AUTHORIZATION_DOMAIN & { chainId: number; verifyingContract: string } {
  return { ...PAIR_AUTHORIZATION_DOMAIN, chainId, verifyingContract: orderExecutor };
}
