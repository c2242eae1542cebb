import type { ErrorDetail } from '../../shared/domain/errors';
import type { ApiState } from './api-state';

export const API_VERSION = 'v1';

export interface EnvelopeMeta {
  requestId: string;
  version: string;
  accountType?: string;
  apiKeyId?: string;
}

export interface SuccessEnvelope {
  success: true;
  data: unknown;
  meta: EnvelopeMeta;
}

export interface ErrorEnvelope {
  success: false;
  error: { code: string; message: string; details: ErrorDetail[] };
  meta: EnvelopeMeta;
}

/** `accountType` and `apiKeyId` appear only once the gateway authenticated the request. */
export function metaOf(state: ApiState): EnvelopeMeta {
  return {
    requestId: state.requestId,
    version: API_VERSION,
    ...(state.auth ? { accountType: state.auth.accountType, apiKeyId: state.auth.apiKey } : {}),
  };
}

export function successEnvelope(state: ApiState, data: unknown): SuccessEnvelope {
  return { success: true, data, meta: metaOf(state) };
}

export function errorEnvelope(
  state: ApiState,
  code: string,
  message: string,
  details: ErrorDetail[] = [],
): ErrorEnvelope {
  return { success: false, error: { code, message, details }, meta: metaOf(state) };
}
