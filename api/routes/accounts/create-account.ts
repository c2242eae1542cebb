import { randomBytes, randomUUID } from 'node:crypto';
import type { SchemaObject } from 'ajv';
import type { AccountsRepository } from '../../../shared/store/repositories/accounts-repository';
import { hashPassphrase } from '../../gateway/passphrase-hash';
import type { SecretBox } from '../../../shared/signing/secret-box';
import { defineRoute, type RouteDefinition } from '../../http/route-definition';

export const createAccountBody: SchemaObject = {
  type: 'object',
  required: ['name', 'password'],
  properties: {
    name: {
      type: 'string',
      minLength: 6,
      maxLength: 255,
      description: 'Account name, at least 6 characters',
    },
    password: {
      type: 'string',
      minLength: 8,
      maxLength: 1024,
      format: 'passphrase',
      description:
        'At least 8 characters; becomes the passphrase sent in x-passphrase, so printable ASCII or Latin-1 only, ' +
        'without spaces at either end',
    },
  },
};

interface CreateAccountBody {
  name: string;
  password: string;
}

export const ACCOUNT_CREATED_MESSAGE =
  'Account created. Store the secret key now: it is shown only once and cannot be recovered.';

export function createAccountRoute(deps: {
  accounts: AccountsRepository;
  secretBox: SecretBox;
}): RouteDefinition {
  return defineRoute<CreateAccountBody>({
    method: 'POST',
    path: '/accounts',
    auth: 'public',
    body: createAccountBody,
    doc: {
      tag: 'Accounts',
      summary: 'Create an API account',
      description:
        'Public and unsigned. Returns the API key ID and the secret key (once); the password becomes the passphrase. Never retry automatically: every success creates a new account.',
      response: {
        type: 'object',
        required: ['message', 'apiKey', 'secretKey'],
        properties: {
          message: { type: 'string' },
          apiKey: { type: 'string', format: 'uuid' },
          secretKey: { type: 'string' },
        },
      },
      errors: [400],
    },
    async handle({ body }) {
      const apiKey = randomUUID();
      const secretKey = randomBytes(32).toString('base64url');
      const now = Date.now();
      await deps.accounts.insert({
        apiKey,
        name: body.name,
        passphraseHash: await hashPassphrase(body.password),
        secretEncrypted: deps.secretBox.seal(secretKey, apiKey),
        active: true,
        createdAt: now,
        updatedAt: now,
      });
      return { message: ACCOUNT_CREATED_MESSAGE, apiKey, secretKey };
    },
  });
}
