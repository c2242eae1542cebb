import { accessSync, constants } from 'node:fs';
import path from 'node:path';

/** The Prometheus binaries the tests use: Debian's `prometheus` package installs both (`.ci/run` does on CI). */
export type PrometheusTool = 'promtool' | 'prometheus';

/** Where `name` is on the PATH (or Debian's /usr/bin), or undefined when it is not installed. */
export function findTool(name: PrometheusTool, env = process.env): string | undefined {
  const dirs = [...(env.PATH ?? '').split(path.delimiter).filter(Boolean), '/usr/bin'];
  for (const dir of dirs) {
    const file = path.join(dir, name);
    try {
      accessSync(file, constants.X_OK);
      return file;
    } catch {
      // Not in this directory.
    }
  }
  return undefined;
}

/**
 * A suite that needs a Prometheus binary: reported by jest as skipped when the machine has none (never silently
 * absent), and failing under CI=true, where `.ci/run` installs it and its absence is a broken CI.
 */
export function describeWithTool(
  name: PrometheusTool,
  title: string,
  suite: (tool: string) => void,
  env = process.env,
): void {
  const tool = findTool(name, env);
  if (!tool && env.CI === 'true') {
    describe(title, () => {
      // eslint-disable-next-line jest/expect-expect -- fails by design: CI lacks what it needs
      it(`finds ${name} (Debian package prometheus)`, () => {
        throw new Error(`${name} is not installed: CI needs it (apt-get install prometheus)`);
      });
    });
    return;
  }
  const run = tool ? describe : describe.skip;
  run(title, () => suite(tool ?? ''));
}
