import { signRequest, type Credentials } from '../../shared/signing/request-signature';
import { createAccount } from '../factories/accounts';

export interface ApiResponse<T = unknown> {
  status: number;
  headers: Headers;
  /** Parsed JSON body (undefined when the body is not JSON). */
  body: T;
  text: string;
}

/** The envelope as the spec describes it; tests assert on it field by field. */
export interface Envelope<T = unknown> {
  success: boolean;
  data?: T;
  error?: { code: string; message: string; details: Array<{ field?: string; message: string }> };
  meta: { requestId: string; version: string; accountType?: string; apiKeyId?: string };
}

async function toResponse<T>(res: Response): Promise<ApiResponse<T>> {
  const text = await res.text();
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    body = undefined;
  }
  return { status: res.status, headers: res.headers, body: body as T, text };
}

/** Sends a request exactly as given: for malformed-request tests. */
export async function rawRequest<T = Envelope>(
  baseUrl: string,
  method: string,
  pathAndQuery: string,
  init: { headers?: Record<string, string>; body?: string | Buffer } = {},
): Promise<ApiResponse<T>> {
  const res = await fetch(`${baseUrl}${pathAndQuery}`, { method, headers: init.headers, body: init.body });
  return toResponse<T>(res);
}

/** A client written from the spec: signs every request anew with its credentials. */
export class ApiClient {
  constructor(
    readonly baseUrl: string,
    readonly credentials: Credentials,
  ) {}

  /** `pathAndQuery` is relative to the base URL, e.g. `/limit-order?status=pending`. */
  async request<T = unknown>(
    method: string,
    pathAndQuery: string,
    body?: unknown,
    tweak: { headers?: Record<string, string>; bodyString?: string; timestamp?: string; nonce?: string } = {},
  ): Promise<ApiResponse<Envelope<T>>> {
    const url = new URL(`${this.baseUrl}${pathAndQuery}`);
    const signed = signRequest(this.credentials, {
      method,
      url: `${url.pathname}${url.search}`,
      body,
      timestamp: tweak.timestamp,
      nonce: tweak.nonce,
    });
    const sendBody = tweak.bodyString ?? (signed.bodyString === '' ? undefined : signed.bodyString);
    const res = await fetch(url, {
      method,
      headers: { ...signed.headers, ...tweak.headers },
      body: sendBody,
    });
    return toResponse<Envelope<T>>(res);
  }

  get<T = unknown>(pathAndQuery: string): Promise<ApiResponse<Envelope<T>>> {
    return this.request<T>('GET', pathAndQuery);
  }
  post<T = unknown>(pathAndQuery: string, body: unknown): Promise<ApiResponse<Envelope<T>>> {
    return this.request<T>('POST', pathAndQuery, body);
  }
  patch<T = unknown>(pathAndQuery: string, body: unknown): Promise<ApiResponse<Envelope<T>>> {
    return this.request<T>('PATCH', pathAndQuery, body);
  }
  delete<T = unknown>(pathAndQuery: string): Promise<ApiResponse<Envelope<T>>> {
    return this.request<T>('DELETE', pathAndQuery);
  }
}

/** Creates an account through `POST /accounts` and returns a client signing with it. */
export async function newAccountClient(baseUrl: string, name?: string): Promise<ApiClient> {
  return new ApiClient(baseUrl, await createAccount(baseUrl, name === undefined ? {} : { name }));
}
