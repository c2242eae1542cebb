import { randomBytes } from 'node:crypto';
import {
  chmodSync,
  closeSync,
  fchmodSync,
  fsyncSync,
  mkdirSync,
  openSync,
  readFileSync,
  renameSync,
  statSync,
  unlinkSync,
  writeSync,
  type Stats,
} from 'node:fs';
import path from 'node:path';
import { TasError } from '../errors';

/** One named set of credentials; any field may be missing (the environment can supply it). */
export interface Profile {
  baseUrl?: string;
  apiKeyId?: string;
  secretKey?: string;
  passphrase?: string;
}

/** The file's shape: `{"profiles": {"default": {...}, "prod": {...}}}`; other top-level keys are kept as found. */
export interface ProfileFile {
  profiles: Record<string, Profile>;
  [other: string]: unknown;
}

const PROFILE_FIELDS = ['baseUrl', 'apiKeyId', 'secretKey', 'passphrase'] as const;

// Mode bits mean nothing on Windows, where the file's ACL decides.
const CHECK_MODE = process.platform !== 'win32';

function profileError(code: string, message: string): TasError {
  return new TasError({ code, status: 0, message });
}

const octal = (mode: number): string => `0${(mode & 0o777).toString(8).padStart(3, '0')}`;

/** ssh's rule for private keys: a file holding secrets that group or others can read or write is refused. */
function assertPrivate(file: string, stats: Stats): void {
  if (!stats.isFile()) throw profileError('PROFILE_INVALID', `profile file ${file} is not a regular file`);
  if (CHECK_MODE && (stats.mode & 0o077) !== 0) {
    throw profileError(
      'PROFILE_PERMISSIONS',
      `permissions ${octal(stats.mode)} for profile file ${file} are too open: it holds secret keys, so group and ` +
        `others must have no access; refused (run: chmod 600 ${file})`,
    );
  }
}

function statIfExists(file: string): Stats | undefined {
  try {
    return statSync(file);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw err;
  }
}

function parseProfileFile(file: string, text: string): ProfileFile {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw profileError('PROFILE_INVALID', `profile file ${file} is not valid JSON`);
  }
  const invalid = (why: string): TasError => profileError('PROFILE_INVALID', `profile file ${file}: ${why}`);
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
    throw invalid('expected a JSON object {"profiles": {...}}');
  }
  const root = parsed as Record<string, unknown>;
  const profiles = root.profiles ?? {};
  if (typeof profiles !== 'object' || profiles === null || Array.isArray(profiles)) {
    throw invalid('"profiles" must be an object of named profiles');
  }
  for (const [name, profile] of Object.entries(profiles)) {
    if (typeof profile !== 'object' || profile === null || Array.isArray(profile)) {
      throw invalid(`profile "${name}" must be an object`);
    }
    for (const field of PROFILE_FIELDS) {
      const value = (profile as Record<string, unknown>)[field];
      if (value !== undefined && typeof value !== 'string') {
        throw invalid(`profile "${name}": ${field} must be a string`);
      }
    }
  }
  return { ...root, profiles: profiles as Record<string, Profile> };
}

/**
 * The profile file, or undefined when it does not exist; refused when others can access it, unless `acceptOpen`
 * (for `--save`, which is about to make it 0600).
 */
export function readProfileFile(file: string, opts: { acceptOpen?: boolean } = {}): ProfileFile | undefined {
  const stats = statIfExists(file);
  if (!stats) return undefined;
  if (opts.acceptOpen && stats.isFile()) return parseProfileFile(file, readFileSync(file, 'utf8'));
  assertPrivate(file, stats);
  return parseProfileFile(file, readFileSync(file, 'utf8'));
}

/**
 * Adds (or replaces) one profile, keeping the others: written to a temporary file created with mode 0600 and
 * renamed over the old one, so the secrets are never readable by others, not even for a moment, and a crash
 * leaves the old file whole. Directories it creates get mode 0700. A file that was too open ends up 0600.
 */
export function saveProfile(file: string, name: string, profile: Profile): void {
  const stats = statIfExists(file);
  if (stats && !stats.isFile())
    throw profileError('PROFILE_INVALID', `profile file ${file} is not a regular file`);
  const current: ProfileFile = stats ? parseProfileFile(file, readFileSync(file, 'utf8')) : { profiles: {} };
  const next: ProfileFile = { ...current, profiles: { ...current.profiles, [name]: profile } };
  const dir = path.dirname(file);
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const temporary = path.join(dir, `.${path.basename(file)}.${randomBytes(6).toString('hex')}.tmp`);
  const fd = openSync(temporary, 'wx', 0o600);
  try {
    try {
      // The umask may have taken bits from the mode given to open.
      fchmodSync(fd, 0o600);
      writeSync(fd, `${JSON.stringify(next, null, 2)}\n`);
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    renameSync(temporary, file);
  } catch (err) {
    try {
      unlinkSync(temporary);
    } catch {
      // Already renamed or never written: nothing to remove.
    }
    throw err;
  }
  chmodSync(file, 0o600);
}
