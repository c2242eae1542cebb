const HEX = '0123456789ABCDEF';

/** Decodes a query component: `+` is a space, `%XX` are UTF-8 bytes; a malformed escape is kept literally. */
export function decodeQueryComponent(raw: string): string {
  const input = raw.replace(/\+/g, ' ');
  if (!input.includes('%')) return input;
  const bytes: number[] = [];
  for (let i = 0; i < input.length; i++) {
    const ch = input[i];
    if (ch === '%' && /^[0-9a-fA-F]{2}$/.test(input.slice(i + 1, i + 3))) {
      bytes.push(parseInt(input.slice(i + 1, i + 3), 16));
      i += 2;
    } else {
      bytes.push(...Buffer.from(ch, 'utf8'));
    }
  }
  return Buffer.from(bytes).toString('utf8');
}

/** RFC 3986 encoding: keeps A-Z a-z 0-9 - . _ ~ and writes every other UTF-8 byte as %XX (uppercase). */
export function encodeRfc3986(value: string): string {
  let out = '';
  for (const byte of Buffer.from(value, 'utf8')) {
    const c = String.fromCharCode(byte);
    if (/[A-Za-z0-9\-._~]/.test(c)) out += c;
    else out += `%${HEX[byte >> 4]}${HEX[byte & 15]}`;
  }
  return out;
}

function compareCodeUnits(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** Canonical query of the part after `?` (without the `?`); the empty string when there is none. */
export function canonicalQuery(rawQuery: string): string {
  if (!rawQuery) return '';
  const pairs = rawQuery.split('&').map((part): [string, string] => {
    const eq = part.indexOf('=');
    return eq < 0
      ? [decodeQueryComponent(part), '']
      : [decodeQueryComponent(part.slice(0, eq)), decodeQueryComponent(part.slice(eq + 1))];
  });
  pairs.sort((x, y) => compareCodeUnits(x[0], y[0]) || compareCodeUnits(x[1], y[1]));
  return pairs.map(([k, v]) => `${encodeRfc3986(k)}=${encodeRfc3986(v)}`).join('&');
}
