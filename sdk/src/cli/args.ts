import { parseArgs } from 'node:util';
import { GLOBAL_OPTIONS, type CommandSpec } from './command';
import { parseDuration } from './duration';
import { DEFAULT_PROFILE } from './settings';
import { UsageError } from './usage-error';

type Values = Record<string, string | boolean | undefined>;

/** A command's parsed arguments; every accessor throws a UsageError for a missing or malformed value. */
export class Args {
  constructor(
    private readonly values: Values,
    private readonly positionals: string[],
  ) {}

  /** A string option; required ones are checked at parse time. */
  string(name: string): string {
    const value = this.optional(name);
    if (value === undefined) throw new UsageError(`missing --${name}`);
    return value;
  }

  optional(name: string): string | undefined {
    const value = this.values[name];
    return typeof value === 'string' ? value : undefined;
  }

  flag(name: string): boolean {
    return this.values[name] === true;
  }

  positional(index: number): string {
    const value = this.positionals[index];
    if (value === undefined) throw new UsageError('missing argument');
    return value;
  }

  /** A chain ID: sent as a JSON integer, so anything else is refused here. */
  chainId(name = 'chain'): number {
    return this.integer(name);
  }

  optionalChainId(name = 'chain'): number | undefined {
    return this.optional(name) === undefined ? undefined : this.integer(name);
  }

  /** A positive whole number. */
  integer(name: string): number {
    const text = this.string(name).trim();
    const value = /^\d+$/.test(text) ? Number(text) : NaN;
    if (!Number.isSafeInteger(value) || value <= 0) {
      throw new UsageError(`--${name} must be a positive whole number, not ${JSON.stringify(text)}`);
    }
    return value;
  }

  /** A finite decimal number (the API validates its range). */
  number(name: string): number {
    const text = this.string(name).trim();
    const value = /^-?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?$/.test(text) ? Number(text) : NaN;
    if (!Number.isFinite(value))
      throw new UsageError(`--${name} must be a number, not ${JSON.stringify(text)}`);
    return value;
  }

  optionalNumber(name: string): number | undefined {
    return this.optional(name) === undefined ? undefined : this.number(name);
  }

  /** A duration in seconds (`3600`, `90m`, `1d`, ...), or the fallback when the option is absent. */
  duration(name: string, fallback: number): number {
    const text = this.optional(name);
    return text === undefined ? fallback : parseDuration(name, text);
  }
}

/** Whether the arguments ask for help (before any `--`), whatever else is wrong with them. */
export function wantsHelp(argv: readonly string[]): boolean {
  const end = argv.indexOf('--');
  return (end === -1 ? argv : argv.slice(0, end)).some((a) => a === '--help' || a === '-h');
}

/** node:util parseArgs over the command's options plus the global ones, strict; required ones checked. */
export function parseCommandArgs(
  spec: CommandSpec,
  argv: readonly string[],
): { args: Args; json: boolean; profile: string } {
  const options: Record<string, { type: 'string' | 'boolean'; short?: string }> = {};
  for (const [name, option] of Object.entries({ ...GLOBAL_OPTIONS, ...spec.options })) {
    options[name] =
      'short' in option && option.short ? { type: option.type, short: option.short } : { type: option.type };
  }
  let parsed: { values: Values; positionals: string[] };
  try {
    parsed = parseArgs({ args: [...argv], options, strict: true, allowPositionals: true }) as {
      values: Values;
      positionals: string[];
    };
  } catch (err) {
    // parseArgs explains itself over several lines; the first says what is wrong.
    // Under a test runner node's own errors may come from another realm: not `instanceof Error` here.
    const { message } = err as { message?: unknown };
    throw new UsageError(typeof message === 'string' ? message.split('\n')[0]! : String(err));
  }
  const expected = spec.positionals ?? [];
  if (parsed.positionals.length < expected.length) {
    throw new UsageError(`missing ${expected[parsed.positionals.length]!.name}`);
  }
  if (parsed.positionals.length > expected.length) {
    throw new UsageError(`unexpected argument ${JSON.stringify(parsed.positionals[expected.length])}`);
  }
  for (const [name, option] of Object.entries(spec.options)) {
    if (option.required && parsed.values[name] === undefined) throw new UsageError(`missing --${name}`);
  }
  const profile = parsed.values.profile;
  if (profile !== undefined && (typeof profile !== 'string' || profile.trim() === '')) {
    throw new UsageError('--profile needs a name');
  }
  return {
    args: new Args(parsed.values, parsed.positionals),
    json: parsed.values.json === true,
    profile: typeof profile === 'string' ? profile : DEFAULT_PROFILE,
  };
}
