/**
 * A scenario that cannot be run as written: the message names the file and the field (or the CSV line), so the
 * author can fix it without reading the runner's code.
 */
export class ScenarioError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ScenarioError';
  }
}
