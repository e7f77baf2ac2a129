import { randomUUID } from 'node:crypto';
import http from 'node:http';
import type { Socket } from 'node:net';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { InvalidInputError, InvalidRequestError } from '../errors.js';
import { detailBody, errorEnvelope } from './envelope.js';
import { MAX_JSON_DEPTH, MAX_PARAM_LENGTH } from '../catalog/limits.js';

/**
 * The deepest nesting of arrays and objects in a JSON text, counted without parsing it (strings are
 * skipped), stopping as soon as it passes `limit`: a hostile body never reaches a recursive parser.
 */
export function jsonDepth(text: string, limit = MAX_JSON_DEPTH): number {
  let depth = 0;
  let deepest = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 92 /* \ */) i++;
      else if (c === 34 /* " */) inString = false;
    } else if (c === 34) inString = true;
    else if (c === 91 /* [ */ || c === 123 /* { */) {
      if (++depth > deepest) {
        deepest = depth;
        if (deepest > limit) return deepest;
      }
    } else if (c === 93 /* ] */ || c === 125 /* } */) depth--;
  }
  return deepest;
}

/** PostgreSQL text cannot hold U+0000, and no catalog value needs it: refused with the field named. */
export const NUL_MESSAGE = (what: string) => `${what} contains a NUL character (\\u0000), which is not accepted`;
const hasNul = (value: unknown): boolean =>
  typeof value === 'string' ? value.includes('\u0000') : Array.isArray(value) && value.some(hasNul);

/**
 * Request guards that must hold on every route: JSON depth checked before parsing, numeric query
 * parameters finite (ajv coerces "Infinity" to a number and then skips its bounds), multipart
 * bodies that do not parse are the client's error.
 */
export function registerRequestGuards(app: FastifyInstance) {
  const parseJson = app.getDefaultJsonParser('error', 'ignore');
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (request, body, done) => {
    if (jsonDepth(body as string) > MAX_JSON_DEPTH)
      return done(new InvalidRequestError(`the JSON body is nested deeper than ${MAX_JSON_DEPTH} levels`), undefined);
    return parseJson(request, body as string, done);
  });
  app.addHook('preHandler', (request, _reply, done) => {
    const query = request.query as Record<string, unknown> | undefined;
    if (query && typeof query === 'object')
      for (const [name, value] of Object.entries(query)) {
        if (typeof value === 'number' && !Number.isFinite(value))
          return done(new InvalidInputError(`query parameter '${name}' must be a finite number`, name));
        if (hasNul(value)) return done(new InvalidInputError(NUL_MESSAGE(`query parameter '${name}'`), name));
      }
    const params = request.params as Record<string, unknown> | undefined;
    if (params && typeof params === 'object')
      for (const [name, value] of Object.entries(params))
        if (hasNul(value)) return done(new InvalidInputError(NUL_MESSAGE(`path parameter '${name}'`), name));
    done();
  });
}

/** Fastify's router refusals (an invalid percent-encoding, a path parameter too long), in the interface's shapes. */
export function frameworkErrors(error: FastifyError, request: FastifyRequest, reply: FastifyReply): void {
  reply.header('x-request-id', request.id).type('application/json; charset=utf-8');
  if (error.code === 'FST_ERR_MAX_PARAM_LENGTH')
    void reply
      .code(414)
      .send(errorEnvelope(request.id, `a path parameter is longer than ${MAX_PARAM_LENGTH} characters`));
  else
    void reply
      .code(400)
      .send(detailBody(request.id, 'the path is not a valid URL: it holds a malformed percent-encoded sequence'));
}

/**
 * Node's refusals before any route runs (headers over the size limit, a malformed request, a client
 * too slow to send its request), in the envelope with a request id, then the connection is closed.
 */
export function clientErrorHandler(error: Error & { code?: string }, socket: Socket) {
  if (error.code === 'ECONNRESET' || socket.destroyed) return;
  const requestId = randomUUID();
  let status = 400;
  let body: object = detailBody(requestId, 'malformed HTTP request');
  if (error.code === 'HPE_HEADER_OVERFLOW') {
    status = 431;
    body = errorEnvelope(requestId, 'the request line and headers are larger than 16 KB');
  } else if (error.code === 'ERR_HTTP_REQUEST_TIMEOUT') {
    status = 408;
    body = errorEnvelope(requestId, 'the request did not arrive in time');
  }
  const text = JSON.stringify(body);
  if (socket.writable)
    socket.write(
      `HTTP/1.1 ${status} ${http.STATUS_CODES[status]}\r\nContent-Type: application/json; charset=utf-8\r\n` +
        `Content-Length: ${Buffer.byteLength(text)}\r\nX-Request-Id: ${requestId}\r\nConnection: close\r\n\r\n${text}`,
    );
  socket.destroy(error);
}
