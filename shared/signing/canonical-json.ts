/**
 * Canonical JSON as the spec defines it: keys sorted at every level by UTF-16 code units, array order kept,
 * no whitespace, standard string escaping with non-ASCII raw, numbers as JSON.stringify writes them.
 */
export function canonicalJson(value: unknown): string {
  if (value === null) return 'null';
  switch (typeof value) {
    case 'string':
    case 'boolean':
      return JSON.stringify(value);
    case 'number':
      if (!Number.isFinite(value))
        throw new TypeError('Canonical JSON has no representation for a non-finite number');
      return JSON.stringify(value);
    case 'object': {
      if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
      const obj = value as Record<string, unknown>;
      // Default sort compares UTF-16 code units, which is what the spec asks for.
      const keys = Object.keys(obj).sort();
      return `{${keys.map((k) => `${JSON.stringify(k)}:${canonicalJson(obj[k])}`).join(',')}}`;
    }
    default:
      throw new TypeError(`Canonical JSON has no representation for ${typeof value}`);
  }
}
