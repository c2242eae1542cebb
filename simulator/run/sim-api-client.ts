import { setTimeout as sleep } from 'node:timers/promises';
import { signRequest, type Credentials } from '../../shared/signing/request-signature';

/** 429s retried before giving up: the spec's rule is to wait out Retry-After. */
const MAX_RATE_LIMITED_RETRIES = 20;

export class SimApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly requestId: string,
  ) {
    super(message);
    this.name = 'SimApiError';
  }
}

interface Envelope<T> {
  success: boolean;
  data?: T;
  error?: { code: string; message: string; details?: Array<{ field?: string; message: string }> };
  meta?: { requestId?: string };
}

/**
 * The run's integrator: every request signed anew as the spec says (fresh timestamp and nonce, the body hash of the
 * exact bytes sent). A 429 is waited out (Retry-After) and sent again, which is safe even for a create: a
 * rate-limited request was never processed. Any other failure throws with the API's code and request id.
 */
export class SimApiClient {
  private constructor(
    private readonly baseUrl: string,
    private readonly credentials: Credentials,
  ) {}

  /** The account's API key id: the integrator the makers grant their pairs to. */
  get apiKey(): string {
    return this.credentials.apiKey;
  }

  /** Creates the run's API account through the public POST /accounts. */
  static async createAccount(baseUrl: string, name: string): Promise<SimApiClient> {
    const password = `simulation-${Date.now()}`;
    const res = await fetch(`${baseUrl}/accounts`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ name, password }),
    });
    const data = await unwrap<{ apiKey: string; secretKey: string }>(res, 'POST /accounts');
    return new SimApiClient(baseUrl, {
      apiKey: data.apiKey,
      secretKey: data.secretKey,
      passphrase: password,
    });
  }

  get<T>(pathAndQuery: string): Promise<T> {
    return this.request<T>('GET', pathAndQuery);
  }

  post<T>(path: string, body: unknown): Promise<T> {
    return this.request<T>('POST', path, body);
  }

  private async request<T>(method: string, pathAndQuery: string, body?: unknown): Promise<T> {
    for (let attempt = 0; ; attempt++) {
      const url = new URL(`${this.baseUrl}${pathAndQuery}`);
      const signed = signRequest(this.credentials, { method, url: `${url.pathname}${url.search}`, body });
      const res = await fetch(url, {
        method,
        headers: signed.headers,
        body: signed.bodyString === '' ? undefined : signed.bodyString,
      });
      if (res.status === 429 && attempt < MAX_RATE_LIMITED_RETRIES) {
        const seconds = Number(res.headers.get('retry-after') ?? '1');
        await res.arrayBuffer();
        await sleep(Math.max(0.05, Number.isFinite(seconds) ? seconds : 1) * 1000);
        continue;
      }
      return unwrap<T>(res, `${method} ${url.pathname}`);
    }
  }
}

async function unwrap<T>(res: Response, what: string): Promise<T> {
  const text = await res.text();
  let envelope: Envelope<T> | undefined;
  try {
    envelope = JSON.parse(text) as Envelope<T>;
  } catch {
    envelope = undefined;
  }
  if (res.ok && envelope?.success && envelope.data !== undefined) return envelope.data;
  const requestId = envelope?.meta?.requestId ?? res.headers.get('x-request-id') ?? '';
  const code = envelope?.error?.code ?? String(res.status);
  const details =
    envelope?.error?.details?.map((d) => (d.field ? `${d.field}: ${d.message}` : d.message)) ?? [];
  const message = envelope?.error?.message ?? (text.slice(0, 200) || res.statusText);
  throw new SimApiError(
    res.status,
    code,
    `${what} answered ${res.status} ${code}: ${[message, ...details].join('; ')} (request ${requestId})`,
    requestId,
  );
}
