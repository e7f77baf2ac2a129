/**
 * The one error hierarchy of the domain. Nothing here knows HTTP: `http/error-handler.ts` maps each
 * class to a status code, in one table.
 */
export abstract class AppError extends Error {
  abstract readonly code: string;
  constructor(
    message: string,
    readonly field?: string,
  ) {
    super(message);
    this.name = new.target.name;
  }
}

/** Input that is present but fails the documented format (types, enums, bounds). */
export class InvalidInputError extends AppError {
  readonly code = 'invalid_input';
}
/** Input that is malformed or missing (a required parameter, unparsable JSON). */
export class InvalidRequestError extends AppError {
  readonly code = 'invalid_request';
}
export class UnauthorizedError extends AppError {
  readonly code = 'unauthorized';
}
/** A valid credential that may not do this (a publishable key outside its endpoints or stores). */
export class ForbiddenError extends AppError {
  readonly code = 'forbidden';
}
export class NotFoundError extends AppError {
  readonly code: string = 'not_found';
}
export class ConflictError extends AppError {
  readonly code = 'conflict';
}
/** What the caller points at existed and is gone for good (a change-feed cursor past the retention). */
export class GoneError extends AppError {
  readonly code = 'gone';
  constructor(
    message: string,
    field: string | undefined,
    /** Put beside the message in the envelope's `data` (what the caller can do instead). */
    readonly data: Record<string, unknown>,
  ) {
    super(message, field);
  }
}
export class PayloadTooLargeError extends AppError {
  readonly code = 'payload_too_large';
}
export class RateLimitedError extends AppError {
  readonly code = 'rate_limited';
  constructor(
    message: string,
    readonly retryAfterSeconds: number,
  ) {
    super(message);
  }
}
/** A backing service (database, Redis) cannot be reached. */
export class DependencyUnavailableError extends AppError {
  readonly code = 'dependency_unavailable';
}

export class StoreNotFoundError extends NotFoundError {
  override readonly code = 'store_not_found';
  constructor() {
    super('store not found', 'store_uuid');
  }
}
