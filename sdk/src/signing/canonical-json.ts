/**
 * Canonical JSON (spec, "Canonical JSON"): object keys sorted at every level by UTF-16 code units, array order
 * kept, no whitespace, JSON.stringify's string escaping (non-ASCII stays raw) and number format.
 */
export function canonicalJson(value: unknown): string {
  if (value === null) return 'null';
  switch (typeof value) {
    case 'string':
    case 'boolean':
      return JSON.stringify(value);
    case 'number':
      // JSON.stringify would write null: the server would then hash a body other than the one meant.
      if (!Number.isFinite(value)) throw new TypeError(`canonical JSON cannot represent the number ${value}`);
      return JSON.stringify(value);
    case 'object': {
      const toJson = (value as { toJSON?: unknown }).toJSON;
      // A Date (or any value with toJSON) is sent as JSON.stringify would send it.
      if (typeof toJson === 'function') return canonicalJson(toJson.call(value));
      if (Array.isArray(value)) {
        // JSON.stringify writes holes and undefined items as null; so does the server after parsing.
        return `[${Array.from(value, (item: unknown) => (item === undefined ? 'null' : canonicalJson(item))).join(',')}]`;
      }
      const record = value as Record<string, unknown>;
      // Keys holding undefined are left out, as JSON.stringify does: the server never sees them.
      const keys = Object.keys(record)
        .filter((key) => record[key] !== undefined && typeof record[key] !== 'function')
        .sort();
      return `{${keys.map((key) => `${JSON.stringify(key)}:${canonicalJson(record[key])}`).join(',')}}`;
    }
    default:
      throw new TypeError(`canonical JSON cannot represent a ${typeof value}`);
  }
}
