/** One item of `error.details`: validation errors name a field (a dot path); handler errors carry only a message. */
export interface ErrorDetail {
  field?: string;
  message: string;
}

/** A domain error with a stable code and HTTP status; the api renders it in the response envelope. */
export class ServiceError extends Error {
  constructor(
    readonly code: string,
    readonly status: number,
    message: string,
    readonly details: ErrorDetail[] = [],
  ) {
    super(message);
    this.name = 'ServiceError';
  }
}

export class ValidationError extends ServiceError {
  constructor(message: string, details: ErrorDetail[] = []) {
    super('VALIDATION_ERROR', 400, message, details);
  }
}

export class NotFoundError extends ServiceError {
  constructor(message: string) {
    super('NOT_FOUND', 404, message);
  }
}

export class ConflictError extends ServiceError {
  constructor(message: string) {
    super('CONFLICT', 409, message);
  }
}

export class ForbiddenError extends ServiceError {
  constructor(message: string) {
    super('FORBIDDEN', 403, message);
  }
}

export class UnauthorizedError extends ServiceError {
  constructor(message = 'Request is not authenticated') {
    super('UNAUTHORIZED', 401, message);
  }
}

export const INTERNAL_ERROR_MESSAGE = 'Unexpected internal error';
