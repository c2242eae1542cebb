import fc from 'fast-check';
import { canonicalQuery, decodeQueryComponent, encodeRfc3986 } from '../../shared/signing/canonical-query';

describe('canonical query: the spec table, row by row', () => {
  it('none: the empty string', () => {
    expect(canonicalQuery('')).toBe('');
  });

  it('status=pending&chainId=137 in any order: chainId=137&status=pending', () => {
    expect(canonicalQuery('status=pending&chainId=137')).toBe('chainId=137&status=pending');
    expect(canonicalQuery('chainId=137&status=pending')).toBe('chainId=137&status=pending');
  });

  it('b=2&a=1&a=0: a=0&a=1&b=2 (by key, then by value)', () => {
    expect(canonicalQuery('b=2&a=1&a=0')).toBe('a=0&a=1&b=2');
  });

  it('q=a+b or q=a%20b: q=a%20b', () => {
    expect(canonicalQuery('q=a+b')).toBe('q=a%20b');
    expect(canonicalQuery('q=a%20b')).toBe('q=a%20b');
  });

  it('x=%7E*!: x=~%2A%21', () => {
    expect(canonicalQuery('x=%7E*!')).toBe('x=~%2A%21');
  });

  it('flag: flag=', () => {
    expect(canonicalQuery('flag')).toBe('flag=');
  });
});

describe('canonical query: decoding and encoding', () => {
  it('treats + as a space and %2B as a plus sign', () => {
    expect(canonicalQuery('q=a+b+c')).toBe('q=a%20b%20c');
    expect(canonicalQuery('q=a%2Bb')).toBe('q=a%2Bb');
    expect(canonicalQuery('a+b=1')).toBe('a%20b=1');
  });

  it("encodes every reserved character, including !'()*, and keeps only A-Z a-z 0-9 - . _ ~", () => {
    expect(canonicalQuery("v=!'()*")).toBe('v=%21%27%28%29%2A');
    expect(canonicalQuery('v=AZaz09-._~')).toBe('v=AZaz09-._~');
    expect(canonicalQuery('v=%3A%2F%3F%23%5B%5D%40%24%2C%3B%25')).toBe('v=%3A%2F%3F%23%5B%5D%40%24%2C%3B%25');
  });

  it('writes hex digits in uppercase', () => {
    expect(canonicalQuery('v=%2a%c3%a9')).toBe('v=%2A%C3%A9');
  });

  it('splits each parameter at its first = only', () => {
    expect(canonicalQuery('a=b=c')).toBe('a=b%3Dc');
    expect(canonicalQuery('a%3Db=c')).toBe('a%3Db=c');
    expect(canonicalQuery('a=')).toBe('a=');
    expect(canonicalQuery('=v')).toBe('=v');
  });

  it('keeps an encoded & inside a value', () => {
    expect(canonicalQuery('q=a%26b=c&p=1')).toBe('p=1&q=a%26b%3Dc');
  });

  it('keeps repeated parameters, sorted by value', () => {
    expect(canonicalQuery('s=b&s=a&s=b')).toBe('s=a&s=b&s=b');
  });

  it('keeps a malformed escape literally (the % itself becomes %25)', () => {
    expect(canonicalQuery('v=%zz')).toBe('v=%25zz');
    expect(canonicalQuery('v=%4')).toBe('v=%254');
    expect(canonicalQuery('v=100%')).toBe('v=100%25');
    expect(canonicalQuery('v=%%41')).toBe('v=%25A');
    expect(decodeQueryComponent('%G1%41')).toBe('%G1A');
  });

  it('decodes %XX as UTF-8 bytes and encodes characters as their UTF-8 bytes', () => {
    expect(canonicalQuery('name=%C3%A9t%C3%A9')).toBe('name=%C3%A9t%C3%A9');
    expect(decodeQueryComponent('%C3%A9t%C3%A9')).toBe('été');
    expect(canonicalQuery('name=été')).toBe('name=%C3%A9t%C3%A9');
    expect(canonicalQuery('e=%F0%9F%98%80')).toBe('e=%F0%9F%98%80');
    expect(encodeRfc3986('中')).toBe('%E4%B8%AD');
    expect(encodeRfc3986('😀')).toBe('%F0%9F%98%80');
  });

  it('turns bytes that are not UTF-8 into U+FFFD, on both sides alike', () => {
    expect(decodeQueryComponent('%FF')).toBe('\uFFFD');
    expect(canonicalQuery('v=%FF')).toBe('v=%EF%BF%BD');
  });

  it('sorts decoded keys by UTF-16 code units, not by their encoded form', () => {
    // '~' (0x7E) sorts after 'Z' and '_' but its encoded form is itself; '%2A' decodes to '*' (0x2A), before 'A'.
    expect(canonicalQuery('~=1&_=2&Z=3&%2A=4&a=5')).toBe('%2A=4&Z=3&_=2&a=5&~=1');
    // U+1F600 (D83D DE00) sorts before U+FF21 by code units although its code point is larger.
    expect(canonicalQuery('k=%EF%BC%A1&k=%F0%9F%98%80')).toBe('k=%F0%9F%98%80&k=%EF%BC%A1');
  });
});

describe('canonical query: properties', () => {
  const component = fc.oneof(fc.string(), fc.string({ unit: 'grapheme' }), fc.string({ unit: 'binary' }));
  const params = fc.array(fc.tuple(component, component), { maxLength: 8 });

  /** Encodes a component the way some client might: any of three encodings, all meaning the same value. */
  const encoders = [
    (s: string) => encodeURIComponent(s),
    (s: string) => encodeURIComponent(s).replace(/%20/g, '+'),
    (s: string) => encodeRfc3986(s),
  ];
  const withoutLoneSurrogates = (s: string): boolean => Buffer.from(s, 'utf8').toString('utf8') === s;

  it('does not depend on the order of the parameters or how each one is encoded', () => {
    fc.assert(
      fc.property(
        params.filter((ps) => ps.every(([k, v]) => withoutLoneSurrogates(k) && withoutLoneSurrogates(v))),
        fc.infiniteStream(fc.nat()),
        (pairs, seeds) => {
          const raw = (list: Array<[string, string]>): string =>
            list
              .map(([k, v]) => {
                const enc = encoders[seeds.next().value % encoders.length];
                return `${enc(k)}=${enc(v)}`;
              })
              .join('&');
          const shuffled = [...pairs]
            .map((p) => ({ p, rank: seeds.next().value }))
            .sort((x, y) => x.rank - y.rank);
          expect(canonicalQuery(raw(shuffled.map(({ p }) => p)))).toBe(canonicalQuery(raw(pairs)));
        },
      ),
      { numRuns: 300 },
    );
  });

  it('is idempotent on arbitrary raw query strings', () => {
    fc.assert(
      fc.property(fc.oneof(fc.string(), fc.string({ unit: 'binary' })), (raw) => {
        const once = canonicalQuery(raw);
        expect(canonicalQuery(once)).toBe(once);
      }),
      { numRuns: 500 },
    );
  });

  it('is idempotent on queries built from parameters, and writes only unreserved characters, %XX, = and &', () => {
    fc.assert(
      fc.property(params, (pairs) => {
        const raw = pairs.map(([k, v]) => `${encodeRfc3986(k)}=${encodeRfc3986(v)}`).join('&');
        const once = canonicalQuery(raw);
        expect(canonicalQuery(once)).toBe(once);
        expect(once).toMatch(/^([A-Za-z0-9\-._~=&]|%[0-9A-F]{2})*$/);
      }),
      { numRuns: 300 },
    );
  });
});
