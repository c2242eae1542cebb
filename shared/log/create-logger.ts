import pino, { type Logger } from 'pino';

export type { Logger };

/** Header and field names that must never reach a log line, whatever logs them. */
export const REDACTED_PATHS = [
  'req.headers["x-passphrase"]',
  'req.headers["x-signature"]',
  'req.headers["x-value-info"]',
  'req.headers.authorization',
  'secretKey',
  'password',
  'passphrase',
  'privateKey',
  'signature',
  '*.secretKey',
  '*.password',
  '*.passphrase',
  '*.privateKey',
  '*.signature',
];

/** The one logger of a process; modules get children bound to requestId, chainId, orderId… */
export function createLogger(level: string, name: string, destination?: pino.DestinationStream): Logger {
  return pino({ name, level, redact: { paths: REDACTED_PATHS, censor: '[redacted]' } }, destination);
}
