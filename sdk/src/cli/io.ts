/**
 * What the CLI touches of its process, passed in so that tests run it in-process with their own environment and
 * capture what it prints.
 */
export interface CliIo {
  env: Readonly<Record<string, string | undefined>>;
  stdout(text: string): void;
  stderr(text: string): void;
  /** Where the default profile file lives (~/.config/tas/profile.json). */
  homeDir: string;
  /** Defaults to globalThis.fetch. */
  fetch?: typeof fetch;
  /**
   * Registers what a following command (`tas events`) does on Ctrl-C instead of dying, until the returned function
   * unregisters it; without it (or unregistered) an interrupt ends the process as usual.
   */
  onInterrupt?(handler: () => void): () => void;
}

/** The CLI's own version, sent in its User-Agent. */
export const CLI_VERSION = '0.1.0';
