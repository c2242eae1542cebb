/**
 * Fields of a signed raw transaction, read from its RLP without parsing the rest: the keeper reads its own
 * stored batches (hundreds of kilobytes each) several times per block, and `Transaction.from` parses every field,
 * hex digit by hex digit, and recovers the sender.
 */

/** Positions of `gasLimit` and `data` in the RLP list of each transaction type (legacy, EIP-2930, EIP-1559). */
const FIELDS: Record<number, { gasLimit: number; data: number }> = {
  0: { gasLimit: 2, data: 5 },
  1: { gasLimit: 3, data: 6 },
  2: { gasLimit: 4, data: 7 },
};

interface Item {
  /** Where its payload starts and ends. */
  start: number;
  end: number;
  list: boolean;
}

function readLength(bytes: Buffer, at: number, size: number): number {
  if (size > 6 || at + size > bytes.length) throw new RangeError('RLP length out of range');
  return bytes.readUIntBE(at, size);
}

function item(bytes: Buffer, at: number): Item {
  if (at >= bytes.length) throw new RangeError('RLP data too short');
  const prefix = bytes[at]!;
  let start: number;
  let length: number;
  let list = false;
  if (prefix < 0x80) return { start: at, end: at + 1, list };
  if (prefix <= 0xb7) [start, length] = [at + 1, prefix - 0x80];
  else if (prefix <= 0xbf) {
    const size = prefix - 0xb7;
    [start, length] = [at + 1 + size, readLength(bytes, at + 1, size)];
  } else if (prefix <= 0xf7) [start, length, list] = [at + 1, prefix - 0xc0, true];
  else {
    const size = prefix - 0xf7;
    [start, length, list] = [at + 1 + size, readLength(bytes, at + 1, size), true];
  }
  if (start + length > bytes.length) throw new RangeError('RLP item runs past its data');
  return { start, end: start + length, list };
}

/** The payload of one field of a signed raw transaction (0x-hex). */
function fieldsOf(rawTx: string, field: 'gasLimit' | 'data'): Buffer {
  if (!/^0x[0-9a-fA-F]+$/.test(rawTx) || rawTx.length % 2 !== 0)
    throw new TypeError('raw transaction is not hex');
  const bytes = Buffer.from(rawTx.slice(2), 'hex');
  const type = bytes[0]! >= 0xc0 ? 0 : bytes[0]!;
  const fields = FIELDS[type];
  if (fields === undefined) throw new TypeError(`unsupported transaction type ${type}`);
  const list = item(bytes, type === 0 ? 0 : 1);
  if (!list.list) throw new TypeError('raw transaction is not an RLP list');
  let at = list.start;
  for (let i = 0; i < fields[field]; i++) at = item(bytes, at).end;
  const value = item(bytes, at);
  if (value.list || value.end > list.end) throw new TypeError(`raw transaction has no ${field} field`);
  return bytes.subarray(value.start, value.end);
}

/** The `data` field of a signed raw transaction (legacy, EIP-2930 or EIP-1559), as bytes. */
export function calldataOfRawTransaction(rawTx: string): Buffer {
  return fieldsOf(rawTx, 'data');
}

/** The gas limit of a signed raw transaction. */
export function gasLimitOfRawTransaction(rawTx: string): bigint {
  const bytes = fieldsOf(rawTx, 'gasLimit');
  return bytes.length === 0 ? 0n : BigInt(`0x${bytes.toString('hex')}`);
}
