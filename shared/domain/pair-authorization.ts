import { getAddress } from 'ethers';

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

/** The domain's own type, listed as `eth_signTypedData_v4` wants it beside the message's types. */
export const EIP712_DOMAIN_TYPE = [
  { name: 'name', type: 'string' },
  { name: 'version', type: 'string' },
  { name: 'chainId', type: 'uint256' },
  { name: 'verifyingContract', type: 'address' },
];

/** One maker's pair authorization as a wallet signs it: the object `eth_signTypedData_v4` takes. */
export interface PairAuthorizationTypedData {
  domain: ReturnType<typeof pairAuthorizationDomain>;
  types: { EIP712Domain: typeof EIP712_DOMAIN_TYPE } & typeof PAIR_AUTHORIZATION_TYPES;
  primaryType: 'PairAuthorization';
  message: { maker: string; tokenIn: string; tokenOut: string };
}

/** Addresses in EIP-55 form: that is what a wallet shows the maker, and what the contract hashes either way. */
export function pairAuthorizationTypedData(
  chainId: number,
  orderExecutor: string,
  pair: { maker: string; tokenIn: string; tokenOut: string },
): PairAuthorizationTypedData {
  return {
    domain: pairAuthorizationDomain(chainId, getAddress(orderExecutor)),
    types: { EIP712Domain: EIP712_DOMAIN_TYPE, ...PAIR_AUTHORIZATION_TYPES },
    primaryType: 'PairAuthorization',
    message: {
      maker: getAddress(pair.maker),
      tokenIn: getAddress(pair.tokenIn),
      tokenOut: getAddress(pair.tokenOut),
    },
  };
}
