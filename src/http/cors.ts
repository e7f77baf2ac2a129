import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { CorsPolicy } from '../modules/stores/cors-policy.js';
import { errorEnvelope } from './envelope.js';

const ALLOWED_HEADERS = 'authorization, apikey, content-type, x-request-id, if-none-match';
const EXPOSED_HEADERS =
  'x-request-id, etag, retry-after, ratelimit-limit, ratelimit-remaining, ratelimit-reset, content-length';

const storeOf = (request: FastifyRequest) => {
  const storeUuid = (request.query as { store_uuid?: unknown }).store_uuid;
  return typeof storeUuid === 'string' ? storeUuid : undefined;
};

/**
 * CORS per store (its operator lists the origins): browser storefronts call /v1 with a publishable
 * key. A preflight names the store in its query string like the request it precedes; an origin the
 * store does not list gets 403 and no Access-Control-* header, so nothing is reflected.
 */
export function registerCors(app: FastifyInstance, cors: CorsPolicy, allowedMethods: (path: string) => string[]) {
  app.options('/v1/*', { schema: { hide: true } }, async (request, reply: FastifyReply) => {
    const origin = request.headers.origin;
    const path = request.url.split('?')[0];
    const methods = allowedMethods(path);
    if (methods.length === 0) return reply.code(404).send(errorEnvelope(request.id, `no route ${path}`));
    if (typeof origin !== 'string' || !(await cors.allows(storeOf(request), origin))) {
      return reply
        .code(403)
        .header('vary', 'origin')
        .send(errorEnvelope(request.id, 'this origin is not allowed for that store (see `vitrine store cors`)'));
    }
    return reply
      .code(204)
      .header('access-control-allow-origin', origin)
      .header('access-control-allow-methods', methods.join(', '))
      .header('access-control-allow-headers', ALLOWED_HEADERS)
      .header('access-control-max-age', '600')
      .header('vary', 'origin')
      .send();
  });

  // A callback hook: requests without an Origin header (servers, tools) pass without a promise.
  app.addHook('onSend', (request, reply, payload, done) => {
    const origin = request.headers.origin;
    if (typeof origin !== 'string' || request.method === 'OPTIONS' || !request.url.startsWith('/v1/'))
      return done(null, payload);
    reply.header('vary', 'origin');
    cors.allows(storeOf(request), origin).then(
      (allowed) => {
        if (allowed)
          reply.header('access-control-allow-origin', origin).header('access-control-expose-headers', EXPOSED_HEADERS);
        done(null, payload);
      },
      (error: Error) => done(error),
    );
  });
}
