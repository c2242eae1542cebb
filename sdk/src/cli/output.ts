import type { CliIo } from './io';

/** JSON with bigints as strings (amounts in base units), two-space indented, one trailing newline. */
export function jsonText(value: unknown): string {
  return `${JSON.stringify(value, (_key, v: unknown) => (typeof v === 'bigint' ? v.toString() : v), 2)}\n`;
}

/** stdout carries the result only (JSON with --json, else text); notes and progress go to stderr. */
export class Output {
  constructor(
    private readonly io: CliIo,
    readonly json: boolean,
  ) {}

  /** The command's result: `value` as JSON with --json, else the text `human` renders. */
  result(value: unknown, human: () => string): void {
    this.io.stdout(this.json ? jsonText(value) : human());
  }

  /** Progress for people (waiting, approving): stderr, and only without --json. */
  progress(text: string): void {
    if (!this.json) this.io.stderr(`${text}\n`);
  }

  /** Always on stderr (e.g. retries), whatever the output format. */
  warn(text: string): void {
    this.io.stderr(`${text}\n`);
  }
}
