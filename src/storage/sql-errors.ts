import { DependencyUnavailableError } from '../errors.js';

// Node socket and DNS errors: the backing service cannot be reached at all.
const SOCKET_ERROR_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'ENOTFOUND',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'EPIPE',
  'EAI_AGAIN',
]);

/**
 * PostgreSQL SQLSTATEs that mean the server cannot serve now, whatever the query: by class, 08
 * connection exception, 28 authorization rejected (a password changed under a running server), 53
 * insufficient resources (53100 disk full, 53200 out of memory, 53300 too many connections), 57P
 * operator intervention (57P01 terminated by an administrator, 57P02 crash shutdown, 57P03 cannot
 * connect now: starting up or shutting down, 57P04 database dropped), 58 system error (I/O); and one
 * by one, 55000 (database not accepting connections), 55P03 (lock not available), 25006 (read-only
 * transaction: a replica promoted or demoted), 57014 (statement cancelled by a timeout).
 */
const UNAVAILABLE_SQLSTATE = /^(08|28|53|57P|58)[0-9A-Z]{2,3}$/;
const UNAVAILABLE_SQLSTATES = new Set(['55000', '55P03', '25006', '57014']);

/**
 * SQLite result codes (with their extended forms: SQLITE_IOERR_WRITE, SQLITE_BUSY_TIMEOUT …): the disk
 * is full, the file cannot be opened, read or written, memory ran out, the file is read-only, or
 * another writer held the lock past every retry.
 */
const UNAVAILABLE_SQLITE = /^SQLITE_(FULL|BUSY|IOERR|CANTOPEN|NOMEM|READONLY|PROTOCOL)(_[A-Z]+)?$/;

function isUnavailableCode(code: string): boolean {
  return (
    SOCKET_ERROR_CODES.has(code) ||
    UNAVAILABLE_SQLSTATE.test(code) ||
    UNAVAILABLE_SQLSTATES.has(code) ||
    UNAVAILABLE_SQLITE.test(code)
  );
}

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

/**
 * True when an error means a backing service (database, Redis) cannot serve now: classified by the
 * driver's code (SQLSTATE class, SQLite result code, socket error); the messages below only for
 * driver errors that carry no code (a pool's own connect timeout, a client closed under a query).
 */
export function isUnavailableError(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  const code = (error as { code?: unknown }).code;
  if (typeof code === 'string' && isUnavailableCode(code)) return true;
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
