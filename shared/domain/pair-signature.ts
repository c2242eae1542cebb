import { verifyTypedData } from 'ethers';

import { PAIR_AUTHORIZATION_TYPES, pairAuthorizationDomain } from './pair-authorization';

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
      pairAuthorizationDomain(auth.chainId, auth.orderExecutor),
      PAIR_AUTHORIZATION_TYPES,
      { maker: auth.maker, tokenIn: auth.tokenIn, tokenOut: auth.tokenOut },
      auth.signature,
    );
    return signer.toLowerCase() === auth.maker.toLowerCase();
  } catch {
    return false;
  }
}

/**
 * isValidPairSignature with the answers remembered: a maker signs once per pair and every order of the pair
 * carries that signature, so a batch of one maker's orders costs one signature recovery, not one per order.
 * Bounded: the oldest answers go first.
 */
export class PairSignatureVerifier {
  private readonly known = new Map<string, boolean>();

  constructor(private readonly capacity = 10_000) {}

  isValid(auth: PairAuthorization): boolean {
    const key = [auth.chainId, auth.orderExecutor, auth.maker, auth.tokenIn, auth.tokenOut, auth.signature]
      .join('|')
      .toLowerCase();
    let valid = this.known.get(key);
    if (valid === undefined) {
      valid = isValidPairSignature(auth);
      if (this.known.size >= this.capacity) this.known.delete(this.known.keys().next().value!);
      this.known.set(key, valid);
    }
    return valid;
  }
}
