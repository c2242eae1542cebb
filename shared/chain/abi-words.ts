import { keccak_256 } from '@noble/hashes/sha3';

/**
 * ABI head words written and read straight from hex, for the few static shapes the keeper encodes and hashes by
 * the thousand per block (order ids, executeBatch calldata). ethers' coder checksums every address and copies
 * every byte through its own hex parser: about a millisecond per order, the keeper's largest cost in a wave. Each
 * writer checks its value as ethers' coder would, so a bad value throws instead of encoding something else.
 */

const ADDRESS = /^0x[0-9a-fA-F]{40}$/;
const BYTES32 = /^0x[0-9a-fA-F]{64}$/;
const HEX = /^0x(?:[0-9a-fA-F]{2})*$/;
const ZEROS_24 = '0'.repeat(24);

/** An address as one ABI word (64 hex digits, no 0x). */
export function addressWord(address: string): string {
  if (!ADDRESS.test(address)) throw new TypeError(`not an address: ${address}`);
  return ZEROS_24 + address.slice(2).toLowerCase();
}

/** A bytes32 value as one ABI word. */
export function bytes32Word(value: string): string {
  if (!BYTES32.test(value)) throw new TypeError(`not 32 bytes of hex: ${value}`);
  return value.slice(2).toLowerCase();
}

/** An unsigned integer of `bits` bits as one ABI word. */
export function uintWord(value: bigint | number, bits = 256): string {
  const v = BigInt(value);
  if (v < 0n || v >> BigInt(bits) !== 0n) throw new RangeError(`${v} does not fit uint${bits}`);
  return v.toString(16).padStart(64, '0');
}

/** Dynamic `bytes` in its tail form: its length word and its bytes padded to whole words. */
export function bytesTail(value: string): string {
  if (!HEX.test(value)) throw new TypeError(`not hex bytes: ${value.slice(0, 20)}…`);
  const hex = value.slice(2).toLowerCase();
  const padded = Math.ceil(hex.length / 64) * 64;
  return uintWord(hex.length / 2) + hex.padEnd(padded, '0');
}

/** keccak256 of hex digits (no 0x), as 0x-prefixed lowercase hex. */
export function keccakOfHex(hex: string): string {
  return `0x${Buffer.from(keccak_256(Buffer.from(hex, 'hex'))).toString('hex')}`;
}

/** keccak256 of a string's UTF-8 bytes (ethers' `id`), as 0x-prefixed lowercase hex. */
export function keccakOfText(text: string): string {
  return `0x${Buffer.from(keccak_256(Buffer.from(text, 'utf8'))).toString('hex')}`;
}

/** Reads ABI words of a byte buffer, with every offset checked against its end. */
export class WordReader {
  constructor(private readonly bytes: Buffer) {}

  get length(): number {
    return this.bytes.length;
  }

  private checked(at: number, size = 32): number {
    if (!Number.isSafeInteger(at) || at < 0 || at + size > this.bytes.length) {
      throw new RangeError(`ABI data too short: ${size} bytes at ${at} of ${this.bytes.length}`);
    }
    return at;
  }

  uint(at: number): bigint {
    const start = this.checked(at);
    return BigInt(`0x${this.bytes.toString('hex', start, start + 32)}`);
  }

  /** A word that must be a small number (an offset or a length). */
  size(at: number): number {
    const start = this.checked(at);
    for (let i = start; i < start + 24; i++) {
      if (this.bytes[i] !== 0) throw new RangeError(`ABI offset or length out of range at ${at}`);
    }
    return this.bytes.readUIntBE(start + 26, 6);
  }

  /** An address word, lowercase 0x-hex. */
  address(at: number): string {
    const start = this.checked(at);
    return `0x${this.bytes.toString('hex', start + 12, start + 32)}`;
  }

  bytes32(at: number): string {
    const start = this.checked(at);
    return `0x${this.bytes.toString('hex', start, start + 32)}`;
  }

  /** Dynamic bytes whose length word is at `at`, as 0x-hex. */
  dynamicBytes(at: number): string {
    const length = this.size(at);
    const start = this.checked(at + 32, length);
    return `0x${this.bytes.toString('hex', start, start + length)}`;
  }
}
