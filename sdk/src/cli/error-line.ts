import { TasError } from '../errors';

const oneLine = (text: string): string => text.replace(/\s*[\r\n]+\s*/g, ' ').trim();

/**
 * The one stderr line of a failure: `error: CODE (HTTP status): message [field: message; ...] (request id X)`.
 * Local failures (no HTTP exchange) have no status part; a network failure says there was no HTTP response.
 * TasError messages never carry a credential; chain errors are reduced to ethers' short message.
 */
export function errorLine(err: unknown): string {
  if (err instanceof TasError) {
    const status =
      err.status > 0 ? ` (HTTP ${err.status})` : err.code === 'NETWORK_ERROR' ? ' (no HTTP response)' : '';
    const details = err.details.length
      ? ` [${err.details.map((d) => (d.field ? `${d.field}: ${d.message}` : d.message)).join('; ')}]`
      : '';
    const requestId = err.requestId ? ` (request id ${err.requestId})` : '';
    return oneLine(`error: ${err.code}${status}: ${err.serverMessage}${details}${requestId}`);
  }
  if (typeof err === 'object' && err !== null) {
    const { code, shortMessage, message } = err as {
      code?: unknown;
      shortMessage?: unknown;
      message?: unknown;
    };
    const text = typeof shortMessage === 'string' ? shortMessage : typeof message === 'string' ? message : '';
    if (typeof code === 'string' && text) return oneLine(`error: ${code}: ${text}`);
    if (text) return oneLine(`error: ${text}`);
  }
  return oneLine(`error: ${String(err)}`);
}
