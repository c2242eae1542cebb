import { accessSync, constants, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { chromium, type BrowserContext } from 'playwright-core';

/** Debian's `chromium` package (`.ci/run` installs it); playwright-core drives it, it downloads no browser. */
export const CHROMIUM_PATH = '/usr/bin/chromium';

/** Headless, and quiet: no first-run UI, no calls home, nothing but the pages the test opens on the network. */
export const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

const LAUNCH_TIMEOUT_MS = 60_000;

export function chromiumInstalled(file = CHROMIUM_PATH): boolean {
  try {
    accessSync(file, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/** Why a browser test cannot run here; CI's own wording, since there its absence is a broken `.ci/run`. */
export function missingChromiumMessage(env: NodeJS.ProcessEnv = process.env): string {
  return env.CI === 'true'
    ? `${CHROMIUM_PATH} is not installed: CI needs it for the browser tests (.ci/run installs Debian's chromium package)`
    : `${CHROMIUM_PATH} is not installed: the browser tests need it; install it with \`apt-get install chromium\``;
}

export interface ChromiumSession {
  context: BrowserContext;
  /** Closes the browser and removes its profile folder. */
  close(): Promise<void>;
}

/** Chromium on a new, empty profile folder of its own (so no earlier run's state can leak into a test). */
export async function launchChromium(): Promise<ChromiumSession> {
  const userDataDir = mkdtempSync(path.join(tmpdir(), 'tas-chromium-'));
  const removeProfile = (): void => rmSync(userDataDir, { recursive: true, force: true });
  try {
    // The persistent context is how playwright takes a profile folder (it refuses --user-data-dir in args).
    const context = await chromium.launchPersistentContext(userDataDir, {
      executablePath: CHROMIUM_PATH,
      headless: true,
      args: CHROMIUM_ARGS,
      timeout: LAUNCH_TIMEOUT_MS,
    });
    return {
      context,
      async close() {
        try {
          await context.close();
        } finally {
          removeProfile();
        }
      },
    };
  } catch (err) {
    removeProfile();
    throw err;
  }
}

/**
 * A suite that needs the browser: launched before its tests and closed after them. Without /usr/bin/chromium the
 * suite is one failing test that says how to install it, on CI and off it alike: never skipped, so a run
 * without the browser cannot pass as a run that tested the page.
 */
export function describeWithChromium(
  title: string,
  suite: (browser: () => BrowserContext) => void,
  env: NodeJS.ProcessEnv = process.env,
): void {
  if (!chromiumInstalled()) {
    describe(title, () => {
      // eslint-disable-next-line jest/expect-expect -- fails by design: CI lacks what it needs
      it(`finds ${CHROMIUM_PATH} (Debian package chromium)`, () => {
        throw new Error(missingChromiumMessage(env));
      });
    });
    return;
  }
  describe(title, () => {
    let session: ChromiumSession | undefined;
    beforeAll(async () => {
      session = await launchChromium();
    }, LAUNCH_TIMEOUT_MS + 10_000);
    afterAll(async () => session?.close());
    suite(() => {
      if (!session) throw new Error('chromium is not running (its launch failed)');
      return session.context;
    });
  });
}
