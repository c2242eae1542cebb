import type { Credentials } from '../credentials';
import { TasError } from '../errors';
import type { CliIo } from './io';
import { readProfileFile, type Profile } from './profile-file';
import path from 'node:path';

export const DEFAULT_BASE_URL = 'http://127.0.0.1:8080/api/v1';
export const DEFAULT_PROFILE = 'default';

/** TAS_PROFILE_FILE, else ~/.config/tas/profile.json. */
export function profileFilePath(io: CliIo): string {
  const configured = io.env.TAS_PROFILE_FILE?.trim();
  return configured ? path.resolve(configured) : path.join(io.homeDir, '.config', 'tas', 'profile.json');
}

/** An environment variable's value; empty counts as unset. */
function fromEnv(io: CliIo, name: string): string | undefined {
  const value = io.env[name];
  return value === undefined || value === '' ? undefined : value;
}

/** TAS_BASE_URL, else the default: where `account create` goes (no profile exists yet). */
export function envBaseUrl(io: CliIo): string {
  return fromEnv(io, 'TAS_BASE_URL') ?? DEFAULT_BASE_URL;
}

export interface Settings {
  baseUrl: string;
  credentials: Credentials;
}

const ENV_NAMES: Record<keyof Credentials, string> = {
  apiKeyId: 'TAS_API_KEY_ID',
  secretKey: 'TAS_SECRET_KEY',
  passphrase: 'TAS_PASSPHRASE',
};

/**
 * Base URL and credentials: each environment variable wins over the profile's field; the profile file is read
 * only when the environment does not supply all three credentials.
 */
export function resolveSettings(io: CliIo, profileName: string): Settings {
  const fromEnvironment: Partial<Credentials> = {
    apiKeyId: fromEnv(io, ENV_NAMES.apiKeyId),
    secretKey: fromEnv(io, ENV_NAMES.secretKey),
    passphrase: fromEnv(io, ENV_NAMES.passphrase),
  };
  let profile: Profile = {};
  const complete = Object.values(fromEnvironment).every((v) => v !== undefined);
  if (!complete) {
    const file = profileFilePath(io);
    const contents = readProfileFile(file);
    const found = contents?.profiles[profileName];
    if (!found) {
      const where = contents
        ? `profile file ${file} has no profile "${profileName}"`
        : `no profile file at ${file}`;
      throw new TasError({
        code: 'MISSING_CREDENTIALS',
        status: 0,
        message:
          `no credentials: ${where}; set TAS_API_KEY_ID, TAS_SECRET_KEY and TAS_PASSPHRASE, or create an ` +
          `account with \`tas account create --name N --password P --save\``,
      });
    }
    profile = found;
  }
  const credentials: Partial<Credentials> = {
    apiKeyId: fromEnvironment.apiKeyId ?? profile.apiKeyId,
    secretKey: fromEnvironment.secretKey ?? profile.secretKey,
    passphrase: fromEnvironment.passphrase ?? profile.passphrase,
  };
  const missing = (Object.keys(ENV_NAMES) as Array<keyof Credentials>).filter((k) => !credentials[k]);
  if (missing.length > 0) {
    throw new TasError({
      code: 'MISSING_CREDENTIALS',
      status: 0,
      message: `profile "${profileName}" lacks ${missing.join(', ')} (or set ${missing.map((k) => ENV_NAMES[k]).join(', ')})`,
    });
  }
  return {
    baseUrl: fromEnv(io, 'TAS_BASE_URL') ?? profile.baseUrl ?? DEFAULT_BASE_URL,
    credentials: credentials as Credentials,
  };
}
