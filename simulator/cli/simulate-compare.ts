/**
 * Prints two simulation reports side by side:
 *   npm run simulate:compare -- A B
 * where A and B are report.json files or the folders (`--out` of `npm run simulate`) holding one. Exit 2 on a
 * usage error, 1 when a report cannot be read or is not a simulation report (the message names the file).
 */
import { readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import Ajv, { type ErrorObject, type SchemaObject } from 'ajv';
import { compareReports } from '../report/compare-reports';
import type { SimulationReport } from '../report/report-types';

const USAGE =
  'usage: npm run simulate:compare -- <A: report.json or its folder> <B: report.json or its folder>';
const REPORT_FILE = 'report.json';

const nullableNumber = { type: ['number', 'null'] };

/** The parts of a report the comparison reads; the rest of the file may be anything (a newer version adds fields). */
const reportSchema: SchemaObject = {
  type: 'object',
  required: ['version', 'scenario', 'run', 'totals', 'dca'],
  properties: {
    version: { const: 1 },
    scenario: {
      type: 'object',
      required: ['name', 'seed', 'blocks'],
      properties: { name: { type: 'string' }, seed: { type: 'number' }, blocks: { type: 'number' } },
    },
    run: {
      type: 'object',
      required: ['wallSeconds', 'secondsPer1000Blocks'],
      properties: { wallSeconds: { type: 'number' }, secondsPer1000Blocks: { type: 'number' } },
    },
    totals: {
      type: 'object',
      required: ['limit'],
      properties: {
        limit: {
          type: 'object',
          required: [
            'placed',
            'triggered',
            'filled',
            'missed',
            'expired',
            'failed',
            'untriggered',
            'fillRatio',
            'latencyBlocks',
            'gasPerOrderByBatchSize',
            'fees',
          ],
          properties: {
            placed: { type: 'number' },
            triggered: { type: 'number' },
            filled: { type: 'number' },
            missed: { type: 'number' },
            expired: { type: 'number' },
            failed: { type: 'object', additionalProperties: { type: 'number' } },
            untriggered: { type: 'number' },
            fillRatio: { type: 'number' },
            latencyBlocks: {
              type: 'object',
              required: ['p50', 'p95'],
              properties: { p50: nullableNumber, p95: nullableNumber },
            },
            gasPerOrderByBatchSize: {
              type: 'array',
              items: {
                type: 'object',
                required: ['batchSize', 'batches', 'gasPerOrder'],
                properties: {
                  batchSize: { type: 'number' },
                  batches: { type: 'number' },
                  gasPerOrder: { type: 'number' },
                },
              },
            },
            fees: {
              type: 'object',
              additionalProperties: { type: 'string', pattern: '^-?[0-9]+(\\.[0-9]+)?$' },
            },
          },
        },
      },
    },
    dca: {
      type: 'array',
      items: {
        type: 'object',
        required: ['sell', 'buy', 'executed', 'averagePrice', 'twap'],
        properties: {
          sell: { type: 'string' },
          buy: { type: 'string' },
          executed: { type: 'number' },
          averagePrice: nullableNumber,
          twap: { type: 'number' },
        },
      },
    },
  },
};

const validateReport = new Ajv({ allErrors: false }).compile(reportSchema);

class ReportFileError extends Error {}

function describe(error: ErrorObject): string {
  return `${error.instancePath === '' ? '(root)' : error.instancePath} ${error.message ?? 'is invalid'}`;
}

/** A report file, or the report.json inside a folder. */
function reportFileOf(arg: string): string {
  const resolved = path.resolve(arg);
  try {
    return statSync(resolved).isDirectory() ? path.join(resolved, REPORT_FILE) : resolved;
  } catch {
    // A missing path is reported by the read that follows, with the file named.
    return resolved;
  }
}

export function readReport(arg: string): SimulationReport {
  const file = reportFileOf(arg);
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    throw new ReportFileError(`${file}: cannot read it (${code ?? (err as Error).message})`);
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (err) {
    throw new ReportFileError(`${file}: not JSON: ${(err as Error).message}`);
  }
  if (!validateReport(json)) {
    const first = validateReport.errors?.[0];
    throw new ReportFileError(
      `${file}: not a simulation report: ${first ? describe(first) : 'does not match the report format'}`,
    );
  }
  return json as SimulationReport;
}

/** The command itself, with its output passed in so a test can run it in-process too. */
export function simulateCompare(
  args: readonly string[],
  out: (text: string) => void,
  err: (text: string) => void,
): number {
  if (args.length !== 2 || args.some((arg) => arg.startsWith('-'))) {
    err(USAGE);
    return 2;
  }
  const [a, b] = args as [string, string];
  let reports: [SimulationReport, SimulationReport];
  try {
    reports = [readReport(a), readReport(b)];
  } catch (error) {
    if (!(error instanceof ReportFileError)) throw error;
    err(error.message);
    return 1;
  }
  out(compareReports(reports[0], reports[1], [a, b]));
  return 0;
}

if (require.main === module) {
  process.exitCode = simulateCompare(
    process.argv.slice(2),
    (text) => console.log(text),
    (text) => console.error(text),
  );
}
