import { CHROMIUM_ARGS, CHROMIUM_PATH, chromiumInstalled, missingChromiumMessage } from '../helpers/chromium';

describe('the docs page test browser helper', () => {
  it('looks for Debian chromium only, and tells an executable from a missing file', () => {
    expect(CHROMIUM_PATH).toBe('/usr/bin/chromium');
    expect(chromiumInstalled('/nonexistent/chromium')).toBe(false);
    // Present and executable on any machine the tests run on.
    expect(chromiumInstalled(process.execPath)).toBe(true);
  });

  it('says how to get chromium, in CI terms under CI=true and as an install command otherwise', () => {
    expect(missingChromiumMessage({ CI: 'true' })).toBe(
      "/usr/bin/chromium is not installed: CI needs it for the browser tests (.ci/run installs Debian's chromium package)",
    );
    expect(missingChromiumMessage({})).toBe(
      '/usr/bin/chromium is not installed: the browser tests need it; install it with `apt-get install chromium`',
    );
  });

  it('runs headless and quiet, leaving the profile folder to the launcher', () => {
    expect(CHROMIUM_ARGS).toEqual([
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ]);
    expect(CHROMIUM_ARGS.some((arg) => arg.startsWith('--user-data-dir'))).toBe(false);
  });
});
