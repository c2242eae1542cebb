import { verifyTypedData } from 'ethers';

/** EIP-712 domain of the OrderExecutor (contracts-abi/src/Eip712Domain.sol): what makers sign against. */
export const PAIR_AUTHORIZATION_DOMAIN = { name: 'TradeAggregationService', version: '1' } as const;

export const PAIR_AUTHORIZATION_TYPES = {
  PairAuthorization: [
    { name: 'maker', type: 'address' },
    { name: 'tokenIn', type: 'address' },
    { name: 'tokenOut', type: 'address' },
  ],
};

export interface PairAuthorization {
  chainId: number;
  orderExecutor: string;
  maker: string;
  /** As the contract sees them (checksummed; the native coin as its pseudo-address). */
  tokenIn: string;
  tokenOut: string;
  signature: string;
}

/**
 * Whether the signature is the maker's pair authorization, checked off-chain exactly as the contract checks it,
 * so a bad signature fails its order at planning and never costs a transaction.
 */
export function isValidPairSignature(auth: PairAuthorization): boolean {
  try {
    const signer = verifyTypedData(
      { ...PAIR_AUTHORIZATION_DOMAIN, chainId: auth.chainId, verifyingContract: auth.orderExecutor },
      PAIR_AUTHORIZATION_TYPES,
      { maker: auth.maker, tokenIn: auth.tokenIn, tokenOut: auth.tokenOut },
      auth.signature,
    );
    return signer.toLowerCase() === auth.maker.toLowerCase();
  } catch {
    return false;
  }
}
