import type { FastifyInstance, FastifyRequest } from 'fastify';
import fastifyRateLimit, { type FastifyRateLimitStoreCtor } from '@fastify/rate-limit';
import { ClusterRateLimitStore } from '../cluster/rate-limit-store.js';
import { isClusterWorker } from '../cluster/messages.js';
import type { Redis } from 'ioredis';
import { failoverRateLimitStore, type RedisHealth } from './rate-limit-store.js';
import { ForbiddenError, RateLimitedError, StoreNotFoundError, UnauthorizedError } from '../errors.js';
import type { StoresService } from '../modules/stores/stores.service.js';
import type { TokensService } from '../modules/stores/tokens.service.js';
import { secretsEqual } from '../modules/stores/api-tokens.js';
import { clientIp, type StoreForwarder } from './store-forwarding.js';

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
  tokens: TokensService;
  rateLimitPerMinute: number;
  /** Per publishable key and shopper IP (VITRINE_PUBLISHABLE_RATE_LIMIT). */
  publishableRateLimitPerMinute: number;
  redis?: Redis;
  redisHealth?: RedisHealth;
  /** A store a write of this process named (any method but GET and HEAD, shopper endpoints aside): its in-memory indexes are kept warm from then on. */
  onStoreWritten?: (storeId: string) => void;
  /** Hands a large store's call to the API process that serves it (src/cluster/store-owners.ts). */
  forward?: StoreForwarder;
}

const SHOPPER_ENDPOINTS =
  'text search, listings, suggestions, search by photo, similar, complementary, collections, shopper events and store details';

/** A publishable key calls only shopper endpoints (routes with `config.shopper`) of the stores it names. */
function checkPublishableKey(request: FastifyRequest) {
  const auth = request.auth!;
  if (!request.routeOptions.config.shopper)
    throw new ForbiddenError(`a publishable key can only call the shopper endpoints (${SHOPPER_ENDPOINTS})`);
  const storeUuid = (request.query as { store_uuid?: unknown }).store_uuid;
  if (typeof storeUuid === 'string' && !auth.storeIds?.includes(storeUuid))
    throw new ForbiddenError('this publishable key does not work for that store');
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
    const resolved = await options.tokens.authenticateForStore(
      token,
      typeof storeUuid === 'string' ? storeUuid : undefined,
    );
    if (!resolved) return;
    request.auth = resolved.auth;
    request.namedStore = resolved.store;
  });
  // Before the rate limit: the serving process counts the call (with the client's address).
  const { forward } = options;
  if (forward)
    app.addHook('onRequest', async (request, reply) => {
      // The returned reply is awaited by Fastify until the forwarded answer is sent.
      if (request.namedStore && (await forward(request, reply, request.namedStore.id))) return reply;
    });

  await app.register(fastifyRateLimit, {
    global: false,
    enableDraftSpec: true,
    // A publishable key is shared by every shopper of a storefront: each shopper IP gets its own budget.
    max: (request) =>
      request.auth?.scope === 'search' ? options.publishableRateLimitPerMinute : options.rateLimitPerMinute,
    timeWindow: 60_000,
    nameSpace: 'vitrine-rl:',
    skipOnError: false,
    // Shared counts: Redis when configured (per-process counts while it is unreachable), else the
    // primary of `vitrine serve --processes N`.
    ...(options.redis && options.redisHealth
      ? {
          store: failoverRateLimitStore(
            options.redis,
            'vitrine-rl:',
            options.redisHealth,
          ) as unknown as FastifyRateLimitStoreCtor,
        }
      : isClusterWorker()
        ? { store: ClusterRateLimitStore as unknown as FastifyRateLimitStoreCtor }
        : {}),
    keyGenerator: (request) =>
      !request.auth
        ? `ip:${clientIp(request)}`
        : request.auth.scope === 'search'
          ? `key:${request.auth.tokenId}:${clientIp(request)}`
          : `token:${request.auth.tokenId}`,
    errorResponseBuilder: (_request, context) =>
      new RateLimitedError(
        `rate limit of ${context.max} requests per minute exceeded, retry in ${context.after}`,
        Math.ceil(context.ttl / 1000),
      ),
  });
  app.addHook('onRequest', app.rateLimit());

  app.addHook('onRequest', async (request) => {
    if (!request.auth) throw new UnauthorizedError('invalid or missing token');
    if (request.auth.scope === 'search') checkPublishableKey(request);
  });

  app.addHook('preHandler', async (request) => {
    if (!request.routeOptions.config.storeScoped) return;
    if (request.namedStore === null) throw new StoreNotFoundError();
    request.store =
      request.namedStore ??
      (await options.stores.getStoreForWorkspace(
        request.auth!.workspaceId,
        (request.query as { store_uuid?: string }).store_uuid ?? '',
      ));
    // A shopper's POST reads (a listing query, a search by photo) or records an event: no catalog write.
    // Taken for one, a 1M store's filtered search built its complete-the-look index (350 MB) in every process.
    const write = request.method !== 'GET' && request.method !== 'HEAD' && !request.routeOptions.config.shopper;
    if (write) options.onStoreWritten?.(request.store.id);
  });
}

/**
 * The operator API's guard: Bearer VITRINE_ADMIN_TOKEN, compared in constant time. A publishable key
 * is told it is not allowed here (403); any other credential is not the admin token (401).
 */
export function registerAdminAuth(app: FastifyInstance, adminToken: string, tokens: TokensService) {
  app.addHook('onRequest', async (request) => {
    const token = presentedToken(request);
    if (token && secretsEqual(token, adminToken)) return;
    if (token && (await tokens.authenticate(token))?.scope === 'search')
      throw new ForbiddenError('a publishable key cannot call the operator API');
    throw new UnauthorizedError('invalid or missing admin token');
  });
}
