import { fromUtf8, utf8 } from './encoding';

const UPPER_HEX = '0123456789ABCDEF';
const UNRESERVED = /^[A-Za-z0-9\-._~]$/;

/** A query component decoded: `+` is a space, `%XX` are UTF-8 bytes; a `%` not followed by two hex digits is kept. */
export function decodeQueryComponent(raw: string): string {
  const text = raw.replace(/\+/g, ' ');
  if (!text.includes('%')) return text;
  const bytes: number[] = [];
  for (let i = 0; i < text.length; i++) {
    const escape = text.slice(i + 1, i + 3);
    if (text[i] === '%' && /^[0-9A-Fa-f]{2}$/.test(escape)) {
      bytes.push(parseInt(escape, 16));
      i += 2;
      continue;
    }
    // A surrogate pair is one character: encode both halves together.
    const codePoint = text.codePointAt(i)!;
    const char = String.fromCodePoint(codePoint);
    bytes.push(...utf8(char));
    i += char.length - 1;
  }
  return fromUtf8(Uint8Array.from(bytes));
}

/** RFC 3986 percent-encoding: `A-Z a-z 0-9 - . _ ~` kept, every other UTF-8 byte as `%XX` (uppercase hex). */
export function encodeRfc3986(value: string): string {
  let out = '';
  for (const byte of utf8(value)) {
    const char = String.fromCharCode(byte);
    out += UNRESERVED.test(char) ? char : `%${UPPER_HEX[byte >> 4]}${UPPER_HEX[byte & 15]}`;
  }
  return out;
}

const byCodeUnits = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

/**
 * Canonical query (spec, "Canonical query") of the part after `?`, given without the `?`: parameters split at
 * their first `=`, decoded, sorted by key then value, re-encoded per RFC 3986. The empty string when there is none.
 * The input is exactly what follows the first `?` of the URL (a second `?` belongs to the first key).
 */
export function canonicalQuery(rawQuery: string): string {
  if (rawQuery === '') return '';
  const pairs = rawQuery.split('&').map((part): [string, string] => {
    const eq = part.indexOf('=');
    if (eq < 0) return [decodeQueryComponent(part), ''];
    return [decodeQueryComponent(part.slice(0, eq)), decodeQueryComponent(part.slice(eq + 1))];
  });
  pairs.sort((x, y) => byCodeUnits(x[0], y[0]) || byCodeUnits(x[1], y[1]));
  return pairs.map(([key, value]) => `${encodeRfc3986(key)}=${encodeRfc3986(value)}`).join('&');
}

/**
 * The query string the client sends for a set of parameters (undefined ones left out), already canonical: what
 * the URL carries is exactly what is signed, whatever an intermediary does to the parameters' order.
 */
export function buildQuery(params: Record<string, string | number | boolean | undefined> = {}): string {
  const pairs = Object.entries(params)
    .filter((entry): entry is [string, string | number | boolean] => entry[1] !== undefined)
    .map(([key, value]) => `${encodeRfc3986(key)}=${encodeRfc3986(String(value))}`);
  return canonicalQuery(pairs.join('&'));
}
