/**
 * Plain-text tables without a dependency. Values come from the server and the chain: control characters are shown
 * escaped, so no value can move the cursor or colour the terminal.
 */

function escapeControls(text: string): string {
  let out = '';
  for (const char of text) {
    const code = char.codePointAt(0)!;
    out += code < 0x20 || (code >= 0x7f && code < 0xa0) ? `\\u${code.toString(16).padStart(4, '0')}` : char;
  }
  return out;
}

/** One cell: absent and empty values as `-`, lists joined, objects as JSON. */
export function cellText(value: unknown): string {
  if (value === undefined || value === null || value === '') return '-';
  if (typeof value === 'string') return escapeControls(value);
  if (typeof value === 'number' || typeof value === 'bigint' || typeof value === 'boolean')
    return String(value);
  if (Array.isArray(value)) return value.length === 0 ? '-' : value.map(cellText).join(', ');
  return escapeControls(
    JSON.stringify(value, (_k, v: unknown) => (typeof v === 'bigint' ? v.toString() : v)),
  );
}

export type Column<T> = [header: string, cell: (row: T) => unknown];

/** Rows under upper-case headers, columns two spaces apart; the last column is not padded. */
export function renderTable<T>(rows: readonly T[], columns: ReadonlyArray<Column<T>>): string {
  const cells = [
    columns.map(([header]) => header),
    ...rows.map((row) => columns.map(([, cell]) => cellText(cell(row)))),
  ];
  const widths = columns.map((_, i) => Math.max(...cells.map((line) => line[i]!.length)));
  return cells
    .map((line) =>
      line
        .map((cell, i) => (i === line.length - 1 ? cell : cell.padEnd(widths[i]!)))
        .join('  ')
        .trimEnd(),
    )
    .join('\n')
    .concat('\n');
}

/** Label and value pairs, the values aligned. */
export function renderFields(entries: ReadonlyArray<[label: string, value: unknown]>): string {
  const width = Math.max(0, ...entries.map(([label]) => label.length));
  return (
    entries.map(([label, value]) => `${label.padEnd(width)}  ${cellText(value)}`.trimEnd()).join('\n') + '\n'
  );
}

/** An object's fields in order; nested objects become `parent.child` entries. */
export function recordEntries(
  record: object,
  omit: readonly string[] = [],
  prefix = '',
): Array<[string, unknown]> {
  const entries: Array<[string, unknown]> = [];
  for (const [key, value] of Object.entries(record)) {
    const name = `${prefix}${key}`;
    if (omit.includes(name)) continue;
    if (typeof value === 'object' && value !== null && !Array.isArray(value)) {
      entries.push(...recordEntries(value, omit, `${name}.`));
    } else {
      entries.push([name, value]);
    }
  }
  return entries;
}
