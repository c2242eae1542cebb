import { readFileSync } from 'node:fs';
import path from 'node:path';
import { parse } from 'csv-parse/sync';
import { piecewiseLinear } from './piecewise-linear';
import { ScenarioError } from './scenario-error';

/** Beyond this a "timestamp" is almost surely in milliseconds: year 5138 in seconds. */
const MAX_TIMESTAMP_SECONDS = 1e11;

interface Row {
  line: number;
  key: number;
  price: number;
}

/**
 * Prices at blocks 0..blocks from a CSV of `block,price` or `timestamp,price` rows (header row first). Timestamps
 * are Unix seconds, mapped to block round((t − t0) / blockTimeSeconds) from the first row; when several rows map to
 * one block the last of them wins (its price is the one at the end of that block). Errors name `file` as the
 * scenario wrote it and the line.
 */
export function csvPrices(file: string, baseDir: string, blocks: number, blockTimeSeconds: number): number[] {
  let text: string;
  try {
    text = readFileSync(path.resolve(baseDir, file), 'utf8');
  } catch (err) {
    throw new ScenarioError(`${file}: cannot be read (${(err as Error).message})`);
  }
  // Line numbers for the messages: skipped blank and comment lines make them differ from record indexes.
  const lines: number[] = [];
  let records: string[][];
  try {
    records = parse(text, {
      bom: true,
      trim: true,
      skip_empty_lines: true,
      comment: '#',
      on_record: (record, info) => {
        lines.push(info.lines);
        return record;
      },
    });
  } catch (err) {
    throw new ScenarioError(`${file}: ${(err as Error).message}`);
  }
  const [header, ...data] = records;
  const column = header?.[0]?.toLowerCase();
  if (
    header === undefined ||
    (column !== 'block' && column !== 'timestamp') ||
    header[1]?.toLowerCase() !== 'price'
  ) {
    throw new ScenarioError(
      `${file} line ${lines[0] ?? 1}: the header must be "block,price" or "timestamp,price"`,
    );
  }
  if (data.length === 0) throw new ScenarioError(`${file}: has no rows after the header`);
  const rows = data.map((record, i) => parseRow(file, column, record, lines[i + 1]!));
  rows.forEach((row, i) => {
    const previous = rows[i - 1];
    if (previous !== undefined && row.key <= previous.key) {
      throw new ScenarioError(
        `${file} line ${row.line}: ${column} ${row.key} must be greater than the previous row's ${previous.key}`,
      );
    }
  });
  const t0 = rows[0]!.key;
  const toBlock = (key: number): number =>
    column === 'block' ? key : Math.round((key - t0) / blockTimeSeconds);
  const knots: Array<[number, number]> = [];
  for (const row of rows) {
    const block = toBlock(row.key);
    const last = knots[knots.length - 1];
    if (last !== undefined && last[0] === block) last[1] = row.price;
    else knots.push([block, row.price]);
  }
  return piecewiseLinear(knots, blocks);
}

function parseRow(file: string, column: 'block' | 'timestamp', record: string[], line: number): Row {
  const [keyText = '', priceText = ''] = record;
  const key = keyText === '' ? Number.NaN : Number(keyText);
  if (!Number.isSafeInteger(key) || key < 0) {
    throw new ScenarioError(
      `${file} line ${line}: ${column} ${JSON.stringify(keyText)} must be an integer >= 0`,
    );
  }
  if (column === 'timestamp' && key > MAX_TIMESTAMP_SECONDS) {
    throw new ScenarioError(
      `${file} line ${line}: timestamp ${key} looks like milliseconds; write Unix seconds`,
    );
  }
  const price = priceText === '' ? Number.NaN : Number(priceText);
  if (!(price > 0 && Number.isFinite(price))) {
    throw new ScenarioError(
      `${file} line ${line}: price ${JSON.stringify(priceText)} must be a number greater than 0`,
    );
  }
  return { line, key, price };
}
