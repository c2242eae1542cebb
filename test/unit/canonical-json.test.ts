import fc from 'fast-check';
import { canonicalJson } from '../../shared/signing/canonical-json';

/** JSON values with ASCII, full-Unicode and arbitrary code-point strings (keys included). */
const anyJson = fc.oneof(
  fc.jsonValue(),
  fc.jsonValue({ stringUnit: 'grapheme' }),
  fc.jsonValue({ stringUnit: 'binary' }),
);

/** What the server does with a received body: parse it, then write it canonically. */
const canonicalOf = (text: string): string => canonicalJson(JSON.parse(text));

/** Rebuilds a JSON value with every object's keys inserted in reverse order (arrays keep theirs). */
function reverseKeyOrder(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(reverseKeyOrder);
  if (value === null || typeof value !== 'object') return value;
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(value).reverse()) {
    Object.defineProperty(out, key, {
      value: reverseKeyOrder((value as Record<string, unknown>)[key]),
      enumerable: true,
      writable: true,
      configurable: true,
    });
  }
  return out;
}

describe('canonical JSON: numbers as JSON.stringify writes them', () => {
  it.each([
    ['1.0', '1'],
    ['1.50', '1.5'],
    ['1e21', '1e+21'],
    ['1E21', '1e+21'],
    ['1e+21', '1e+21'],
    ['100000000000000000000', '100000000000000000000'],
    ['0.0000001', '1e-7'],
    ['0.000001', '0.000001'],
    ['1.5e-7', '1.5e-7'],
    ['-0', '0'],
    ['-0.0', '0'],
    ['0', '0'],
    ['-12.25', '-12.25'],
    ['9007199254740991', '9007199254740991'],
    ['-9007199254740991', '-9007199254740991'],
    ['123456789012', '123456789012'],
    ['1e2', '100'],
    ['12345678901234567890123', '1.2345678901234568e+22'],
  ])('%s is written %s', (input, expected) => {
    expect(canonicalOf(input)).toBe(expected);
    expect(canonicalOf(`{"n":${input}}`)).toBe(`{"n":${expected}}`);
  });

  it('refuses numbers JSON cannot write', () => {
    expect(() => canonicalJson(Number.POSITIVE_INFINITY)).toThrow(TypeError);
    expect(() => canonicalJson(Number.NaN)).toThrow(TypeError);
    expect(() => canonicalJson(undefined)).toThrow(TypeError);
    expect(() => canonicalJson(BigInt(1))).toThrow(TypeError);
  });
});

describe('canonical JSON: key order', () => {
  it('sorts ASCII keys by byte order: uppercase, then _, then lowercase', () => {
    expect(canonicalOf('{"b":1,"a":2,"_":3,"B":4,"A":5,"a_":6,"aB":7,"ab":8,"0":9,"10":10,"9":11}')).toBe(
      '{"0":9,"10":10,"9":11,"A":5,"B":4,"_":3,"a":2,"aB":7,"a_":6,"ab":8,"b":1}',
    );
  });

  it('sorts by UTF-16 code units, so a non-BMP key (surrogate pair) sorts before high BMP keys', () => {
    // U+1F600 is D83D DE00 in UTF-16; U+FF21 (fullwidth A) is FF21, so code units put the emoji first
    // although its code point is larger.
    const value = { '\uFF21': 1, '\u{1F600}': 2, é: 3, z: 4 };
    expect(canonicalJson(value)).toBe('{"z":4,"é":3,"\u{1F600}":2,"\uFF21":1}');
  });

  it('sorts at every level and keeps array order', () => {
    expect(canonicalOf('{"z":{"y":[3,{"b":1,"a":[2,1]},1],"x":null},"a":[{"d":true,"c":false}]}')).toBe(
      '{"a":[{"c":false,"d":true}],"z":{"x":null,"y":[3,{"a":[2,1],"b":1},1]}}',
    );
  });

  it('writes empty containers and scalars without whitespace', () => {
    expect(canonicalOf(' { "a" : [ ] , "b" : { } , "c" : [ 1 , 2 ] } ')).toBe('{"a":[],"b":{},"c":[1,2]}');
    expect(canonicalOf('null')).toBe('null');
    expect(canonicalOf('true')).toBe('true');
    expect(canonicalOf('"x"')).toBe('"x"');
  });
});

describe('canonical JSON: strings', () => {
  it('escapes quotes, backslash and control characters the standard way', () => {
    expect(canonicalJson('a"b\\c')).toBe('"a\\"b\\\\c"');
    expect(canonicalJson('\b\f\n\r\t')).toBe('"\\b\\f\\n\\r\\t"');
    expect(canonicalJson('\u0000\u0001\u001f')).toBe('"\\u0000\\u0001\\u001f"');
    expect(canonicalJson('\u007f')).toBe('"\u007f"');
  });

  it('writes non-ASCII as raw characters, not \\u escapes', () => {
    expect(canonicalOf('"\\u00e9\\u4e2d\\ud83d\\ude00"')).toBe('"é中😀"');
    expect(canonicalJson({ ключ: 'значение' })).toBe('{"ключ":"значение"}');
  });

  it('does not escape the solidus or U+2028', () => {
    expect(canonicalOf('"a\\/b"')).toBe('"a/b"');
    expect(canonicalJson('\u2028')).toBe('"\u2028"');
  });

  it('escapes keys like values', () => {
    expect(canonicalJson({ 'a"\n': 1 })).toBe('{"a\\"\\n":1}');
  });
});

describe('canonical JSON: properties', () => {
  it('is a fixed point: canonicalising the parsed canonical form gives the same string', () => {
    fc.assert(
      fc.property(anyJson, (value) => {
        const once = canonicalJson(value);
        expect(canonicalJson(JSON.parse(once))).toBe(once);
      }),
      { numRuns: 300 },
    );
  });

  it('writes valid JSON that means the same value', () => {
    fc.assert(
      fc.property(anyJson, (value) => {
        expect(JSON.parse(canonicalJson(value))).toEqual(JSON.parse(JSON.stringify(value)));
      }),
      { numRuns: 300 },
    );
  });

  it('does not depend on the key order of the input', () => {
    fc.assert(
      fc.property(anyJson, (value) => {
        expect(canonicalJson(reverseKeyOrder(value))).toBe(canonicalJson(value));
      }),
      { numRuns: 300 },
    );
  });

  it('does not depend on the key order of the input text', () => {
    const entries = fc.uniqueArray(fc.tuple(fc.string(), fc.jsonValue({ maxDepth: 2 })), {
      selector: ([key]) => key,
      maxLength: 8,
    });
    fc.assert(
      fc.property(entries, fc.infiniteStream(fc.nat()), (pairs, seeds) => {
        const shuffled = pairs
          .map((pair) => ({ pair, rank: seeds.next().value }))
          .sort((x, y) => x.rank - y.rank)
          .map(({ pair }) => pair);
        const text = (list: typeof pairs): string =>
          `{${list.map(([k, v]) => `${JSON.stringify(k)}:${JSON.stringify(v)}`).join(',')}}`;
        expect(canonicalOf(text(shuffled))).toBe(canonicalOf(text(pairs)));
      }),
      { numRuns: 200 },
    );
  });
});
