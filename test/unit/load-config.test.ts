import path from 'node:path';
import {
  checkEnvironment,
  ConfigError,
  ENV_DEFAULTS,
  ENV_OF_FIELD,
  loadConfig,
} from '../../shared/config/load-config';

const CHAINS_FILE = path.resolve(__dirname, '../../config/chains.json');

function problem(env: Record<string, string>): string {
  try {
    loadConfig({ CHAINS_FILE, ...env });
  } catch (err) {
    expect(err).toBeInstanceOf(ConfigError);
    return (err as Error).message;
  }
  throw new Error('the configuration was accepted');
}

describe('configuration errors', () => {
  it('name the variable and the value it was given, in one line', () => {
    expect(problem({ PORT: 'abc' })).toBe('Invalid configuration: PORT="abc" must be integer');
    expect(problem({ KEEPER_LEASE_MS: '5', STALE_AFTER_SECONDS: '0' })).toBe(
      'Invalid configuration: STALE_AFTER_SECONDS="0" must be >= 1; KEEPER_LEASE_MS="5" must be >= 1000',
    );
    expect(problem({ LOG_LEVEL: 'loud' })).toBe(
      'Invalid configuration: LOG_LEVEL="loud" must be equal to one of the allowed values',
    );
  });

  it('never repeat a secret or a URL that may carry credentials', () => {
    const secrets = {
      MASTER_KEY: 'not-a-key-s3cret',
      EXECUTOR_PRIVATE_KEYS: `0x${'ab'.repeat(32)},0xs3cret`,
      DATABASE_URL: 'postgres://user:s3cret@db/x',
      REDIS_URL: 'http://user:s3cret@cache',
    };
    const message = problem(secrets);
    expect(message).not.toMatch(/s3cret/);
    for (const name of Object.keys(secrets)) expect(message).toContain(`${name} (value not shown)`);
  });

  it('know the variable of every field', () => {
    expect(new Set(Object.values(ENV_OF_FIELD))).toEqual(new Set(Object.keys(ENV_DEFAULTS)));
  });

  it('are found before the chains exist', () => {
    expect(() => checkEnvironment({ PORT: 'abc', CHAINS_FILE: '/nonexistent.json' })).toThrow(
      'Invalid configuration: PORT="abc" must be integer',
    );
    expect(() => checkEnvironment({ CHAINS_FILE: '/nonexistent.json' })).not.toThrow();
  });
});
