import type { FastifyInstance, FastifyRequest } from 'fastify';
import fastifyRateLimit from '@fastify/rate-limit';
import type { Redis } from 'ioredis';
import { RateLimitedError, StoreNotFoundError, UnauthorizedError } from '../errors.js';
import type { StoresService } from '../modules/stores/stores.service.js';
import { secretsEqual } from '../modules/stores/api-tokens.js';

/** `Authorization: Bearer <token>` or `apikey: <token>` (CONTRACT §3); anything else is no token. */
export function presentedToken(request: FastifyRequest): string | undefined {
  const authorization = request.headers.authorization;
  if (typeof authorization === 'string') {
    const match = /^Bearer[ ]+(\S+)\s*$/i.exec(authorization);
    return match ? match[1] : undefined;
  }
  const apikey = request.headers.apikey;
  return typeof apikey === 'string' && apikey.trim() !== '' ? apikey.trim() : undefined;
}

export interface TenantAuthOptions {
  stores: StoresService;
  rateLimitPerMinute: number;
  redis?: Redis;
}

/**
 * Hooks for every /v1 route, in this order: resolve the token, count the request against the
 * token's budget (or the client IP's when there is no valid token, so guessing is throttled
 * too), then refuse requests without a valid token, then resolve `store_uuid` on store routes.
 */
export async function registerTenantAuth(app: FastifyInstance, options: TenantAuthOptions) {
  app.decorateRequest('auth', null);
  app.decorateRequest('namedStore', undefined);

  app.addHook('onRequest', async (request) => {
    const token = presentedToken(request);
    if (!token) return;
    // One lookup resolves the token and the store named by store_uuid (see the store-scope hook).
    const storeUuid = (request.query as { store_uuid?: unknown }).store_uuid;
    const resolved = await options.stores.authenticateForStore(
      token,
      typeof storeUuid === 'string' ? storeUuid : undefined,
    );
    if (!resolved) return;
    request.auth = resolved.auth;
    request.namedStore = resolved.store;
  });

  await app.register(fastifyRateLimit, {
    global: false,
    enableDraftSpec: true,
    max: options.rateLimitPerMinute,
    timeWindow: 60_000,
    nameSpace: 'vitrine-rl:',
    skipOnError: false,
    ...(options.redis ? { redis: options.redis } : {}),
    keyGenerator: (request) => (request.auth ? `token:${request.auth.tokenId}` : `ip:${request.ip}`),
    errorResponseBuilder: (_request, context) =>
      new RateLimitedError(
        `rate limit of ${context.max} requests per minute exceeded, retry in ${context.after}`,
        Math.ceil(context.ttl / 1000),
      ),
  });
  app.addHook('onRequest', app.rateLimit());

  app.addHook('onRequest', async (request) => {
    if (!request.auth) throw new UnauthorizedError('invalid or missing token');
  });

  app.addHook('preHandler', async (request) => {
    if (!request.routeOptions.config.storeScoped) return;
    if (request.namedStore === null) throw new StoreNotFoundError();
    if (request.namedStore) {
      request.store = request.namedStore;
      return;
    }
    const storeUuid = (request.query as { store_uuid?: string }).store_uuid ?? '';
    request.store = await options.stores.getStoreForWorkspace(request.auth!.workspaceId, storeUuid);
  });
}

/** The operator API's guard: Bearer VITRINE_ADMIN_TOKEN, compared in constant time. */
export function registerAdminAuth(app: FastifyInstance, adminToken: string) {
  app.addHook('onRequest', async (request) => {
    const token = presentedToken(request);
    if (!token || !secretsEqual(token, adminToken)) throw new UnauthorizedError('invalid or missing admin token');
  });
}
