import type { IncomingMessage } from 'node:http';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import {
  AppError,
  ConflictError,
  DependencyUnavailableError,
  ForbiddenError,
  GoneError,
  InvalidInputError,
  InvalidRequestError,
  NotFoundError,
  PayloadTooLargeError,
  RateLimitedError,
  UnauthorizedError,
} from '../errors.js';
import { isUnavailableError } from '../storage/sql-errors.js';
import { NUL_MESSAGE } from './request-guards.js';
import { assetErrorBody, detailBody, errorEnvelope, INTERNAL_ERROR_MESSAGE, UNAUTHORIZED_MESSAGE } from './envelope.js';
import type { ErrorShape } from './types.js';
import { formatMegabytes, MAX_JSON_BODY_BYTES } from '../catalog/limits.js';

/** The one place that knows HTTP status codes for domain errors. */
const STATUS_BY_ERROR: Array<[new (...args: never[]) => AppError, number]> = [
  [InvalidRequestError, 400],
  [InvalidInputError, 422],
  [UnauthorizedError, 401],
  [ForbiddenError, 403],
  [NotFoundError, 404],
  [ConflictError, 409],
  [GoneError, 410],
  [PayloadTooLargeError, 413],
  [RateLimitedError, 429],
  [DependencyUnavailableError, 502],
];

/** What busboy says when a multipart body does not parse. */
const MALFORMED_MULTIPART = /multipart|part header|boundary/i;

interface Classified {
  status: number;
  message: string;
  reason: string;
  /** Extra facts for the envelope's `data` (410: the oldest sequence still available). */
  data?: Record<string, unknown>;
}

const REASON_BY_STATUS: Record<number, string> = {
  400: 'invalid_request',
  401: 'unauthorized',
  403: 'forbidden',
  404: 'not_found',
  405: 'method_not_allowed',
  409: 'conflict',
  410: 'gone',
  413: 'payload_too_large',
  422: 'invalid_request',
  429: 'rate_limited',
  500: 'internal_error',
  502: 'service_unavailable',
};

const CONTEXT_NAMES: Record<string, string> = {
  querystring: 'query parameter',
  body: 'body',
  params: 'path parameter',
  headers: 'header',
};

/** Fastify/ajv validation errors: a missing required input is 400, a present but wrong one 422 (CONTRACT §4). */
function classifyValidation(error: FastifyError): Classified {
  const first = error.validation![0];
  const context = CONTEXT_NAMES[error.validationContext ?? 'body'] ?? 'body';
  const path = first.instancePath.replace(/^\//, '').replace(/\//g, '.');
  if (first.keyword === 'required') {
    const missing = (first.params as { missingProperty?: string }).missingProperty ?? '';
    const field = path ? `${path}.${missing}` : missing;
    return { status: 400, message: `${context} '${field}' is required`, reason: 'invalid_request' };
  }
  let message = first.message ?? 'is invalid';
  // A union of literals (TypeBox's enums) fails once per literal: name them all.
  const literals = error
    .validation!.filter((e) => e.keyword === 'const' && e.instancePath === first.instancePath)
    .map((e) => (e.params as { allowedValue?: unknown }).allowedValue);
  if (first.keyword === 'const' && literals.length > 1) message = `must be one of ${literals.join(', ')}`;
  if (first.keyword === 'enum')
    message += `: ${((first.params as { allowedValues?: unknown[] }).allowedValues ?? []).join(', ')}`;
  const subject = path ? (context === 'body' ? `body field '${path}'` : `${context} '${path}'`) : context;
  return { status: 422, message: `${subject} ${message}`, reason: 'invalid_request' };
}

function classify(error: FastifyError | Error): Classified {
  if (error instanceof AppError) {
    const status = STATUS_BY_ERROR.find(([type]) => error instanceof type)?.[1] ?? 500;
    const reason = error.code === 'store_not_found' ? 'store_not_found' : REASON_BY_STATUS[status];
    return {
      status,
      message: status === 401 ? UNAUTHORIZED_MESSAGE : error.message,
      reason,
      ...(error instanceof GoneError && { data: error.data }),
    };
  }
  const fastifyError = error as FastifyError;
  if (fastifyError.validation) return classifyValidation(fastifyError);
  switch (fastifyError.code) {
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return { status: 400, message: 'unsupported Content-Type: send application/json', reason: 'invalid_request' };
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      return { status: 400, message: 'body is empty: send a JSON document', reason: 'invalid_request' };
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
      return { status: 400, message: 'body is not valid JSON', reason: 'invalid_request' };
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return {
        status: 413,
        message: `body is larger than the ${formatMegabytes(MAX_JSON_BODY_BYTES)} limit`,
        reason: 'payload_too_large',
      };
    case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
      return { status: 400, message: 'Content-Length does not match the body', reason: 'invalid_request' };
    default:
  }
  // A NUL character in a body value reaching PostgreSQL text (22021) or an encoding it cannot take (22P05).
  const sqlState = (error as { code?: unknown }).code;
  if (sqlState === '22021' || sqlState === '22P05') {
    return { status: 422, message: NUL_MESSAGE('a text value'), reason: 'invalid_request' };
  }
  if (isUnavailableError(error)) {
    return { status: 502, message: 'a backing service is unavailable, try again later', reason: 'service_unavailable' };
  }
  // A multipart body that does not parse (cut short, no boundary, a broken part header): busboy
  // throws plain errors while a route reads the parts. The client's error, not ours.
  if (fastifyError.statusCode === undefined && MALFORMED_MULTIPART.test(error.message)) {
    return {
      status: 400,
      message: `malformed multipart/form-data body: ${error.message}`,
      reason: 'invalid_request',
    };
  }
  // JSON.parse failures surface as SyntaxError with statusCode 400 from the content-type parser.
  if (error instanceof SyntaxError && fastifyError.statusCode === 400) {
    return { status: 400, message: 'body is not valid JSON', reason: 'invalid_request' };
  }
  const status = fastifyError.statusCode;
  if (typeof status === 'number' && status >= 400 && status < 500) {
    return {
      status: status === 415 ? 400 : status,
      message: fastifyError.message,
      reason: REASON_BY_STATUS[status] ?? 'invalid_request',
    };
  }
  return { status: 500, message: INTERNAL_ERROR_MESSAGE, reason: 'internal_error' };
}

export function errorBody(shape: ErrorShape, requestId: string, { status, message, reason, data }: Classified) {
  if (status === 401) return errorEnvelope(requestId, UNAUTHORIZED_MESSAGE);
  // A credential's scope is not the asset shape's business: 403 is always the plain envelope.
  if (status === 403) return errorEnvelope(requestId, message);
  if (shape === 'asset') {
    return assetErrorBody(requestId, status === 500 ? INTERNAL_ERROR_MESSAGE : 'ERROR', reason, message);
  }
  if (status === 400 || status === 422) return detailBody(requestId, message);
  return data ? { ...errorEnvelope(requestId, message), data } : errorEnvelope(requestId, message);
}

/** How much of a refused body is read and dropped, at most, before the connection is closed anyway. */
const DISCARD_MAX_BYTES = 64 * 1024 * 1024;
const DISCARD_MAX_MS = 10_000;

const bodyDone = (raw: IncomingMessage) => raw.complete || raw.readableEnded || raw.destroyed;

/** Reads and drops what is left of a request body, until its end, the byte bound or the time bound. */
function discardRest(raw: IncomingMessage): Promise<void> {
  // readableEnded: a body already read to its end (by the multipart parser, or an injected request,
  // which never sets `complete`) has no 'end' left to wait for.
  if (bodyDone(raw)) return Promise.resolve();
  return new Promise((resolve) => {
    let read = 0;
    const done = () => {
      clearTimeout(timer);
      raw.off('data', onData);
      raw.off('end', done);
      raw.off('close', done);
      raw.off('error', done);
      resolve();
    };
    const onData = (chunk: Buffer) => {
      read += chunk.length;
      if (read > DISCARD_MAX_BYTES) done();
    };
    const timer = setTimeout(done, DISCARD_MAX_MS);
    raw.on('data', onData);
    raw.once('end', done);
    raw.once('close', done);
    raw.once('error', done);
    raw.resume();
  });
}

/** Registered once, at the root: every error of every route goes through here. */
export function registerErrorHandling(
  app: FastifyInstance,
  knownRoutes: { allowedMethods(url: string): string[]; errorShape(url: string): ErrorShape },
) {
  app.setErrorHandler(async (error: FastifyError, request: FastifyRequest, reply: FastifyReply) => {
    const shape = request.routeOptions?.config?.errorShape ?? 'standard';
    let classified = classify(error);
    // The asset endpoints answer every validation failure with 400 (seed: asset list mapping table).
    if (shape === 'asset' && classified.status === 422) classified = { ...classified, status: 400 };
    if (classified.status >= 500) request.log.error({ err: error }, 'request failed');
    else
      request.log.info(
        { code: (error as AppError).code ?? error.code, detail: classified.message },
        'request rejected',
      );
    if (error instanceof RateLimitedError) reply.header('retry-after', String(error.retryAfterSeconds));
    // A body refused for its size is read to its end (up to a bound) before the answer, so a client
    // still sending it reads the 413 instead of a reset; then the connection closes.
    if (classified.status === 413 && !bodyDone(request.raw)) {
      reply.header('connection', 'close');
      await discardRest(request.raw);
    }
    return reply
      .code(classified.status)
      .type('application/json; charset=utf-8')
      .send(errorBody(shape, request.id, classified));
  });

  app.setNotFoundHandler(async (request, reply) => {
    const path = request.url.split('?')[0];
    const allowed = knownRoutes.allowedMethods(path);
    if (allowed.length > 0 && !allowed.includes(request.method)) {
      const message = `method ${request.method} is not allowed on ${path}; allowed: ${allowed.join(', ')}`;
      return reply
        .code(405)
        .header('allow', allowed.join(', '))
        .send(
          errorBody(knownRoutes.errorShape(path), request.id, { status: 405, message, reason: 'method_not_allowed' }),
        );
    }
    return reply.code(404).send(errorEnvelope(request.id, `no route ${request.method} ${path}`));
  });
}
