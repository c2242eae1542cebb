import os from 'node:os';
import { runCli } from './run';

// `tas order list | head -1`: a reader that stops reading ends the CLI quietly, as SIGPIPE would.
process.stdout.on('error', (err: NodeJS.ErrnoException) => {
  if (err.code !== 'EPIPE') throw err;
  process.exit(process.exitCode ?? 0);
});

/** The `tas` executable (bin/tas.cjs): the process's arguments, environment and streams. */
runCli(process.argv.slice(2), {
  env: process.env,
  stdout: (text) => process.stdout.write(text),
  stderr: (text) => process.stderr.write(text),
  homeDir: os.homedir(),
  onInterrupt: (handler) => {
    // Only while registered: a second Ctrl-C (or one in any other command) ends the process as usual.
    const once = (): void => {
      process.removeListener('SIGINT', once);
      handler();
    };
    process.on('SIGINT', once);
    return () => process.removeListener('SIGINT', once);
  },
}).then(
  (code) => {
    // exitCode, not exit(): piped stdout is flushed before the process ends.
    process.exitCode = code;
  },
  (err: unknown) => {
    process.stderr.write(`error: ${err instanceof Error ? err.message : String(err)}\n`);
    process.exitCode = 1;
  },
);
