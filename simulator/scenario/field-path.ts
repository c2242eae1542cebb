const IDENTIFIER = /^[A-Za-z_$][A-Za-z0-9_$]*$/;
const INDEX = /^(0|[1-9][0-9]*)$/;
const ROOT = '(root)';

/** One property or index appended to a field path the way a scenario author reads it. */
export function childPath(parent: string, segment: string | number): string {
  const base = parent === ROOT ? '' : parent;
  const text = String(segment);
  if (typeof segment === 'number' || INDEX.test(text)) return `${base}[${text}]`;
  if (IDENTIFIER.test(text)) return base === '' ? text : `${base}.${text}`;
  return `${base}[${JSON.stringify(text)}]`;
}

/**
 * A JSON pointer as ajv reports it (`/markets/0/path/points`) written as the field a scenario author sees
 * (`markets[0].path.points`); the scenario itself is `(root)`.
 */
export function fieldPath(pointer: string): string {
  if (pointer === '') return ROOT;
  return pointer
    .slice(1)
    .split('/')
    .map((raw) => raw.replace(/~1/g, '/').replace(/~0/g, '~'))
    .reduce<string>((path, segment) => childPath(path, segment), ROOT);
}
