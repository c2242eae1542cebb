/** The command line itself is wrong (unknown command or option, a missing or malformed value): exit code 2. */
export class UsageError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'UsageError';
  }
}
