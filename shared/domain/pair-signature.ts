import { Interface, TypedDataEncoder, verifyTypedData } from 'ethers';
import { LRUCache } from 'lru-cache';

import {
  PAIR_AUTHORIZATION_TYPES,
  pairAuthorizationDomain,
  type PairAuthorizationMessage,
} from './pair-authorization';

export interface PairAuthorization extends PairAuthorizationMessage {
  chainId: number;
  orderExecutor: string;
  signature: string;
}

/** What a contract-wallet check needs of the chain: the code at an address and a read-only call. */
export interface SignatureChainReader {
  getCode(address: string): Promise<string>;
  call(tx: { to: string; data: string; gasLimit?: bigint }): Promise<string>;
}

const ERC1271 = new Interface([
  'function isValidSignature(bytes32 hash, bytes signature) view returns (bytes4)',
]);
const ERC1271_MAGIC = '0x1626ba7e';
/** The contract's own gas budget for isValidSignature (MakerSignatures.ERC1271_GAS). */
const ERC1271_GAS = 50_000n;

function messageOf(auth: PairAuthorization): PairAuthorizationMessage {
  return {
    maker: auth.maker,
    tokenIn: auth.tokenIn,
    tokenOut: auth.tokenOut,
    integrator: auth.integrator,
    maxDeviationBps: auth.maxDeviationBps,
    maxFeeBps: auth.maxFeeBps,
  };
}

/** The EIP-712 digest the maker signs (what ERC-1271 wallets are asked about). */
export function pairAuthorizationDigest(auth: Omit<PairAuthorization, 'signature'>): string {
  return TypedDataEncoder.hash(
    pairAuthorizationDomain(auth.chainId, auth.orderExecutor),
    PAIR_AUTHORIZATION_TYPES,
    messageOf({ ...auth, signature: '0x' }),
  );
}

/** Whether an ECDSA signature recovers to the maker, exactly as the contract's first check. */
export function isValidPairSignature(auth: PairAuthorization): boolean {
  try {
    const signer = verifyTypedData(
      pairAuthorizationDomain(auth.chainId, auth.orderExecutor),
      PAIR_AUTHORIZATION_TYPES,
      messageOf(auth),
      auth.signature,
    );
    return signer.toLowerCase() === auth.maker.toLowerCase();
  } catch {
    return false;
  }
}

/**
 * The contract's whole check (contracts-abi/src/MakerSignatures.sol): ECDSA recovering to the maker, else, for a
 * maker with code (a contract wallet, an EIP-7702 account), its ERC-1271 isValidSignature within the contract's gas
 * budget. A chain that cannot be read throws (the caller decides what an outage means).
 */
export async function isValidMakerSignature(
  auth: PairAuthorization,
  chain: SignatureChainReader,
): Promise<boolean> {
  return isValidPairSignature(auth) || isValidWalletSignature(auth, chain);
}

/** The ERC-1271 half of the contract's check: a maker with code whose isValidSignature accepts the signature. */
async function isValidWalletSignature(
  auth: PairAuthorization,
  chain: SignatureChainReader,
): Promise<boolean> {
  if (!/^0x([0-9a-fA-F]{2})+$/.test(auth.signature)) return false;
  const code = await chain.getCode(auth.maker);
  if (code === '0x' || code === '') return false;
  let answer: string;
  try {
    answer = await chain.call({
      to: auth.maker,
      data: ERC1271.encodeFunctionData('isValidSignature', [pairAuthorizationDigest(auth), auth.signature]),
      gasLimit: ERC1271_GAS,
    });
  } catch (err) {
    // A revert is the wallet's "no"; anything else (no node) is the caller's to handle.
    if ((err as { code?: string }).code === 'CALL_EXCEPTION') return false;
    throw err;
  }
  return answer.length >= 66 && answer.slice(0, 10).toLowerCase() === ERC1271_MAGIC;
}

/**
 * isValidMakerSignature with the answers remembered: a maker signs once per pair and every order of the pair
 * carries that signature, so a batch of one maker's orders costs one check, not one per order. Only ECDSA answers
 * are kept: a contract wallet's answer may change (owners rotate, a signature is revoked), so it is asked each time.
 * Bounded: the answers used least recently go first.
 */
export class PairSignatureVerifier {
  private readonly known: LRUCache<string, true>;

  constructor(capacity = 10_000) {
    this.known = new LRUCache<string, true>({ max: capacity });
  }

  async isValid(auth: PairAuthorization, chain: SignatureChainReader): Promise<boolean> {
    const key = [
      auth.chainId,
      auth.orderExecutor,
      auth.maker,
      auth.tokenIn,
      auth.tokenOut,
      auth.integrator,
      auth.maxDeviationBps,
      auth.maxFeeBps,
      auth.signature,
    ]
      .join('|')
      .toLowerCase();
    if (this.known.get(key)) return true;
    if (isValidPairSignature(auth)) {
      this.known.set(key, true);
      return true;
    }
    return isValidWalletSignature(auth, chain);
  }
}
