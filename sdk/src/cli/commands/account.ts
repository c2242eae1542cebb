import { TasClient } from '../../client';
import { TasError } from '../../errors';
import type { CommandSpec } from '../command';
import { readProfileFile, saveProfile } from '../profile-file';
import { envBaseUrl, profileFilePath } from '../settings';
import { renderFields } from '../table';

export const accountCreate: CommandSpec = {
  name: 'account create',
  summary: 'create an API account (POST /accounts): API key ID, secret key, passphrase',
  description:
    'The password becomes the passphrase. The API returns the secret key once: it is printed once (or, with\n' +
    '--save, written to the profile file with mode 0600 instead). The account goes to TAS_BASE_URL (default\n' +
    'http://127.0.0.1:8080/api/v1), which --save stores with the credentials.',
  options: {
    name: { type: 'string', value: 'N', required: true, description: 'account name (6+ characters)' },
    password: {
      type: 'string',
      value: 'P',
      required: true,
      description: 'password (8+ characters, printable Latin-1); becomes the passphrase',
    },
    save: {
      type: 'boolean',
      description: 'save base URL and credentials as the profile (--profile, default "default")',
    },
  },
  examples: [
    'tas account create --name my-integration --password "a long passphrase" --save',
    'TAS_PROFILE_FILE=./profile.json tas account create --name bot-one --password s3cret-pass --save --profile bot',
  ],
  async run(ctx, args) {
    const save = args.flag('save');
    const file = profileFilePath(ctx.io);
    // Checked before the account exists: its secret key cannot be fetched a second time.
    if (save && readProfileFile(file, { acceptOpen: true })?.profiles[ctx.profile]) {
      throw new TasError({
        code: 'PROFILE_EXISTS',
        status: 0,
        message: `profile "${ctx.profile}" already exists in ${file}: choose another with --profile NAME`,
      });
    }
    const name = args.string('name');
    const baseUrl = envBaseUrl(ctx.io);
    const credentials = await TasClient.createAccount(
      baseUrl,
      { name, password: args.string('password') },
      ctx.clientOptions(),
    );
    let saveError: unknown;
    if (save) {
      try {
        saveProfile(file, ctx.profile, { baseUrl, ...credentials });
      } catch (err) {
        saveError = err;
      }
    }
    const saved = save && saveError === undefined;
    ctx.out.result(
      {
        name,
        baseUrl,
        apiKeyId: credentials.apiKeyId,
        secretKey: credentials.secretKey,
        profile: saved ? ctx.profile : null,
        profileFile: saved ? file : null,
      },
      () => {
        const fields: Array<[string, unknown]> = [
          ['name', name],
          ['base URL', baseUrl],
          ['API key ID', credentials.apiKeyId],
        ];
        if (saved) {
          return (
            `Account created.\n${renderFields(fields)}\n` +
            `Saved as profile "${ctx.profile}" in ${file} (mode 0600), with the secret key and the passphrase.\n` +
            `The API returns the secret key only once: that file now holds the only copy.\n`
          );
        }
        return (
          `Account created.\n${renderFields([...fields, ['secret key', credentials.secretKey]])}\n` +
          `Store the secret key now: the API returns it only once. Sign with the API key ID, the secret key and\n` +
          `your password (the passphrase), e.g. in TAS_API_KEY_ID, TAS_SECRET_KEY and TAS_PASSPHRASE.\n`
        );
      },
    );
    if (saveError !== undefined) throw saveError;
  },
};
