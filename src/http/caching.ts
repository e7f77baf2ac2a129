import { hash } from 'node:crypto';
import type { FastifyInstance } from 'fastify';

const SUCCESS_PREFIX = '{"status":{"code":0';
const DATA_KEY = '"data":';

/** Weak comparison (RFC 9110 §13.1.2) of an If-None-Match list with the answer's ETag. */
function matches(ifNoneMatch: string | undefined, etag: string): boolean {
  if (!ifNoneMatch) return false;
  const opaque = etag.replace(/^W\//, '');
  return ifNoneMatch
    .split(',')
    .map((tag) => tag.trim())
    .some((tag) => tag === '*' || tag.replace(/^W\//, '') === opaque);
}

/**
 * ETags and Cache-Control. Every JSON answer carries its request id, so a hash of the whole body
 * would never repeat: the tag is computed over what follows `"data":` in the serialized success
 * envelope (the status, with the id, always comes first), so the same data gives the same tag and
 * `If-None-Match` a 304. Weak, because the bytes on the wire also depend on the compression.
 * Registered before compression, so it sees the serialized text.
 */
export function registerCaching(app: FastifyInstance) {
  // A callback hook, not an async one: it runs on every answer and has nothing to wait for.
  app.addHook('onSend', (request, reply, payload, done) => {
    const read = request.method === 'GET' || request.method === 'HEAD';
    if (!read || reply.statusCode !== 200) {
      if (!reply.hasHeader('cache-control')) reply.header('cache-control', 'no-store');
      return done(null, payload);
    }
    if (!reply.hasHeader('cache-control')) reply.header('cache-control', 'private, no-cache');
    if (typeof payload !== 'string' || reply.hasHeader('etag') || !payload.startsWith(SUCCESS_PREFIX))
      return done(null, payload);
    const data = payload.indexOf(DATA_KEY);
    if (data < 0) return done(null, payload);
    const etag = `W/"${hash('sha1', payload.slice(data + DATA_KEY.length), 'base64url')}"`;
    reply.header('etag', etag);
    if (matches(request.headers['if-none-match'], etag)) {
      reply.code(304);
      return done(null, '');
    }
    done(null, payload);
  });
}
