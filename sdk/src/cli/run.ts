import { parseCommandArgs, wantsHelp } from './args';
import type { CommandSpec } from './command';
import { COMMANDS } from './commands';
import { Context } from './context';
import { errorLine } from './error-line';
import { commandHelp, generalHelp, groupHelp, usageLine } from './help';
import type { CliIo } from './io';
import { UsageError } from './usage-error';

export const EXIT_OK = 0;
export const EXIT_ERROR = 1;
export const EXIT_USAGE = 2;

const GROUPS = [...new Set(COMMANDS.filter((c) => c.name.includes(' ')).map((c) => c.name.split(' ')[0]!))];

/** Global options typed before the command (`tas --json chains`): moved behind its name. */
function leadingGlobals(argv: readonly string[]): string[] {
  const leading: string[] = [];
  for (let i = 0; i < argv.length; i += 1) {
    const arg = argv[i]!;
    if (arg === '--json' || arg.startsWith('--profile=')) leading.push(arg);
    else if (arg === '--profile' && i + 1 < argv.length) leading.push(arg, argv[++i]!);
    else break;
  }
  return leading;
}

/** The command named by the leading words of argv (the longest match), and the arguments after its name. */
function findCommand(argv: readonly string[]): { spec?: CommandSpec; rest: string[]; words: string[] } {
  const leading = leadingGlobals(argv);
  const after = argv.slice(leading.length);
  const words: string[] = [];
  for (const arg of after) {
    if (arg.startsWith('-')) break;
    words.push(arg);
  }
  for (let n = Math.min(words.length, 2); n > 0; n -= 1) {
    const name = words.slice(0, n).join(' ');
    const spec = COMMANDS.find((c) => c.name === name);
    if (spec) return { spec, rest: [...leading, ...after.slice(n)], words };
  }
  return { rest: [...argv], words };
}

function usageFailure(io: CliIo, message: string, usage: string): number {
  io.stderr(`error: ${message}\n\n${usage}`);
  return EXIT_USAGE;
}

/** `tas help [command...]`, `tas --help`, `tas <group>` and unknown commands. */
function helpOrUnknown(io: CliIo, argv: readonly string[], words: string[]): number {
  const [first, ...more] = words;
  if (first === 'help' || (first === undefined && wantsHelp(argv))) {
    const name = more.join(' ');
    const spec = COMMANDS.find((c) => c.name === name);
    if (spec) io.stdout(commandHelp(spec));
    else if (GROUPS.includes(name)) io.stdout(groupHelp(name, COMMANDS));
    else if (name === '') io.stdout(generalHelp(COMMANDS));
    else return usageFailure(io, `unknown command "${name}"`, generalHelp(COMMANDS));
    return EXIT_OK;
  }
  if (first !== undefined && GROUPS.includes(first)) {
    if (more.length === 0 && wantsHelp(argv)) {
      io.stdout(groupHelp(first, COMMANDS));
      return EXIT_OK;
    }
    const what = more.length ? `unknown command "${first} ${more[0]}"` : `${first}: which command?`;
    return usageFailure(io, what, groupHelp(first, COMMANDS));
  }
  const what = first === undefined ? 'no command given' : `unknown command "${first}"`;
  return usageFailure(io, what, generalHelp(COMMANDS));
}

/**
 * Runs one command line (argv without `node` and the script) and resolves to the exit code: 0 success, 1 an
 * error (one `error: ...` line on stderr), 2 a usage error (the line plus the command's usage).
 */
export async function runCli(argv: readonly string[], io: CliIo): Promise<number> {
  const { spec, rest, words } = findCommand(argv);
  if (!spec) return helpOrUnknown(io, argv, words);
  if (wantsHelp(rest)) {
    io.stdout(commandHelp(spec));
    return EXIT_OK;
  }
  let ctx: Context | undefined;
  try {
    const { args, json, profile } = parseCommandArgs(spec, rest);
    ctx = new Context(io, json, profile);
    await spec.run(ctx, args);
    return EXIT_OK;
  } catch (err) {
    if (err instanceof UsageError) {
      const usage = `Usage: ${usageLine(spec)}\nRun \`tas ${spec.name} --help\` for the options.\n`;
      return usageFailure(io, err.message, usage);
    }
    io.stderr(`${errorLine(err)}\n`);
    return EXIT_ERROR;
  } finally {
    ctx?.close();
  }
}
