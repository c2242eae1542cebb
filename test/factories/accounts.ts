import type { Credentials } from '../../shared/signing/request-signature';

/** The POST /accounts body (spec: name of 6 characters or more, password of 8 or more). */
export interface AccountBody {
  name: string;
  password: string;
}

let made = 0;

/** A fresh name and password on every call, so accounts of one run never collide. */
export function accountBody(over: Partial<AccountBody> = {}): AccountBody {
  made += 1;
  return { name: `tester-${made}`, password: `password-${made}-${Date.now()}`, ...over };
}

/**
 * Creates an account through the public `POST /accounts` (as a client does) and returns its credentials, the
 * password as the passphrase. Throws with the answer when the api refuses.
 */
export async function createAccount(baseUrl: string, over: Partial<AccountBody> = {}): Promise<Credentials> {
  const body = accountBody(over);
  const res = await fetch(`${baseUrl}/accounts`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  const text = await res.text();
  const data = res.status === 200 ? (JSON.parse(text) as { data?: Partial<Credentials> }).data : undefined;
  if (!data?.apiKey || !data.secretKey) throw new Error(`account creation failed: ${res.status} ${text}`);
  return { apiKey: data.apiKey, secretKey: data.secretKey, passphrase: body.password };
}
