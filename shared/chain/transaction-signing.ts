import { keccak_256 } from '@noble/hashes/sha3';
import type { SigningKey } from 'ethers';

/**
 * Signs legacy (EIP-155) and EIP-1559 transactions with Buffers: a keeper batch carries a few hundred kilobytes of
 * calldata, and ethers' Transaction serialises it through hex strings, digit by digit, three times per signature
 * (tens of milliseconds per batch). The result is byte for byte what ethers' `Wallet.signTransaction` gives (RFC 6979
 * signatures are deterministic; the tests hold the two against each other).
 */

export interface UnsignedTransaction {
  chainId: bigint;
  nonce: number;
  to: string;
  data: string;
  gasLimit: bigint;
  value: bigint;
  fees: { type: 2; maxFeePerGas: bigint; maxPriorityFeePerGas: bigint } | { type: 0; gasPrice: bigint };
}

export interface SignedTransaction {
  /** 0x-hex of the signed transaction, as eth_sendRawTransaction takes it. */
  raw: string;
  /** keccak256 of it: the transaction hash. */
  hash: string;
}

type Rlp = Buffer | Rlp[];

function lengthPrefix(length: number, offset: number): Buffer {
  if (length < 56) return Buffer.from([offset + length]);
  const hex = length.toString(16);
  const size = Buffer.from(hex.length % 2 ? `0${hex}` : hex, 'hex');
  return Buffer.concat([Buffer.from([offset + 55 + size.length]), size]);
}

function encodeRlp(value: Rlp): Buffer {
  if (Array.isArray(value)) {
    const body = Buffer.concat(value.map(encodeRlp));
    return Buffer.concat([lengthPrefix(body.length, 0xc0), body]);
  }
  if (value.length === 1 && value[0]! < 0x80) return value;
  return Buffer.concat([lengthPrefix(value.length, 0x80), value]);
}

/** An unsigned integer as RLP wants it: big-endian, no leading zeros (zero is empty). */
function uint(value: bigint | number): Buffer {
  const v = BigInt(value);
  if (v < 0n) throw new RangeError(`negative value in a transaction: ${v}`);
  if (v === 0n) return Buffer.alloc(0);
  const hex = v.toString(16);
  return Buffer.from(hex.length % 2 ? `0${hex}` : hex, 'hex');
}

function hexBytes(value: string, what: string, size?: number): Buffer {
  if (!/^0x(?:[0-9a-fA-F]{2})*$/.test(value) || (size !== undefined && value.length !== 2 + size * 2)) {
    throw new TypeError(`invalid ${what} in a transaction`);
  }
  return Buffer.from(value.slice(2), 'hex');
}

function hashOf(bytes: Buffer): Buffer {
  return Buffer.from(keccak_256(bytes));
}

/** Signs `tx` with `key`: the raw transaction and its hash. */
export function signTransaction(tx: UnsignedTransaction, key: SigningKey): SignedTransaction {
  const common = [
    uint(tx.gasLimit),
    hexBytes(tx.to, 'recipient', 20),
    uint(tx.value),
    hexBytes(tx.data, 'data'),
  ];
  let raw: Buffer;
  if (tx.fees.type === 2) {
    if (tx.fees.maxPriorityFeePerGas > tx.fees.maxFeePerGas) {
      throw new RangeError('the priority fee of a transaction cannot exceed its max fee');
    }
    const fields: Rlp[] = [
      uint(tx.chainId),
      uint(tx.nonce),
      uint(tx.fees.maxPriorityFeePerGas),
      uint(tx.fees.maxFeePerGas),
      ...common,
      [],
    ];
    const digest = hashOf(Buffer.concat([Buffer.from([2]), encodeRlp(fields)]));
    const sig = key.sign(digest);
    const signed = [...fields, uint(sig.yParity), uint(BigInt(sig.r)), uint(BigInt(sig.s))];
    raw = Buffer.concat([Buffer.from([2]), encodeRlp(signed)]);
  } else {
    const fields: Rlp[] = [uint(tx.nonce), uint(tx.fees.gasPrice), ...common];
    const digest = hashOf(encodeRlp([...fields, uint(tx.chainId), uint(0), uint(0)]));
    const sig = key.sign(digest);
    const v = tx.chainId * 2n + 35n + BigInt(sig.yParity);
    raw = encodeRlp([...fields, uint(v), uint(BigInt(sig.r)), uint(BigInt(sig.s))]);
  }
  return { raw: `0x${raw.toString('hex')}`, hash: `0x${hashOf(raw).toString('hex')}` };
}
