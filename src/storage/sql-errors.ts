import { DependencyUnavailableError } from '../errors.js';

// Node socket errors and PostgreSQL's connection-class SQLSTATEs (08xxx, 57P0x admin shutdown).
const CONNECTION_ERROR_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'ENOTFOUND',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'EPIPE',
  'EAI_AGAIN',
  '08000',
  '08001',
  '08003',
  '08004',
  '08006',
  '57P01',
  '57P02',
  '57P03',
  'SQLITE_CANTOPEN',
  'SQLITE_IOERR',
]);

const CONNECTION_MESSAGES = [
  /connection terminated/i,
  /timeout exceeded when trying to connect/i,
  /connection is closed/i,
  /max retries per request/i,
  /stream isn't writeable/i,
  /driver has already been destroyed/i,
  /not queryable/i,
  /terminating connection/i,
  /Connection terminated/i,
  /Command timed out/i,
  /Stream isn't writeable and enableOfflineQueue options is false/i,
];

/** True when an error means a backing service (database, Redis) cannot be reached. */
export function isUnavailableError(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  const code = (error as { code?: unknown }).code;
  if (typeof code === 'string' && CONNECTION_ERROR_CODES.has(code)) return true;
  if (error.name === 'MaxRetriesPerRequestError') return true;
  if (CONNECTION_MESSAGES.some((pattern) => pattern.test(error.message))) return true;
  // AggregateError from net.connect when every address refused.
  if (error instanceof AggregateError) return error.errors.some(isUnavailableError);
  return false;
}

/** True when a write lost a race on a unique key (SQLite constraint / PostgreSQL 23505). */
export function isUniqueViolation(error: unknown): boolean {
  const code = (error as { code?: unknown })?.code;
  return code === '23505' || code === 'SQLITE_CONSTRAINT_UNIQUE' || code === 'SQLITE_CONSTRAINT_PRIMARYKEY';
}

/** Driver errors translated once: unreachable backends become DependencyUnavailableError. */
export function translateStorageError(error: unknown): unknown {
  if (isUnavailableError(error))
    return new DependencyUnavailableError('a backing service is unavailable, try again later');
  return error;
}
