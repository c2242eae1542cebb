import { UsageError } from './usage-error';

const UNIT_SECONDS: Readonly<Record<string, number>> = { s: 1, m: 60, h: 3600, d: 86_400, w: 604_800 };

/** `3600`, `3600s`, `90m`, `12h`, `1d` or `2w` in seconds (a positive whole number). */
export function parseDuration(flag: string, text: string): number {
  const match = /^(\d+)([smhdw]?)$/.exec(text.trim());
  const seconds = match ? Number(match[1]) * UNIT_SECONDS[match[2] || 's']! : NaN;
  if (!Number.isSafeInteger(seconds) || seconds <= 0) {
    throw new UsageError(`--${flag} must be a positive duration such as 3600, 3600s, 90m, 12h, 1d or 2w`);
  }
  return seconds;
}
