import { randomUUID } from 'node:crypto';
import Fastify, { type FastifyInstance, type FastifyServerOptions } from 'fastify';
import fastifyCompress from '@fastify/compress';
import fastifySwagger from '@fastify/swagger';
import fastifySwaggerUi from '@fastify/swagger-ui';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { Container } from './container.js';
import './http/types.js';
import { registerErrorHandling } from './http/error-handler.js';
import { trackKnownRoutes } from './http/known-routes.js';
import { registerAdminAuth, registerTenantAuth } from './http/auth.js';
import { registerComponents } from './http/components.js';
import { openApiOptions } from './http/openapi.js';
import { registerCors } from './http/cors.js';
import { registerCaching } from './http/caching.js';
import { registerOperations } from './http/operations.js';
import { registerReplicaRouting } from './http/replica-routing.js';
import { registerConsole } from './http/console.js';
import { storesRoutes } from './modules/stores/stores.routes.js';
import { storesAdminRoutes } from './modules/stores/stores.admin.routes.js';
import { productsAdminRoutes } from './modules/products/products.admin.routes.js';
import { searchAdminRoutes } from './modules/search/search.admin.routes.js';
import { complementsAdminRoutes } from './modules/complements/complements.admin.routes.js';
import { visualAdminRoutes } from './modules/visual/visual.admin.routes.js';
import { importsAdminRoutes } from './modules/imports/imports.routes.js';
import { vocabularyAdminRoutes } from './modules/vocabulary/vocabulary.admin.routes.js';
import { productsRoutes } from './modules/products/products.routes.js';
import { taggingRoutes } from './modules/tagging/tagging.routes.js';
import { taggingAdminRoutes } from './modules/tagging/tagging.admin.routes.js';
import { assetsRoutes } from './modules/assets/assets.routes.js';
import { searchRoutes } from './modules/search/search.routes.js';
import { collectionsRoutes } from './modules/collections/collections.routes.js';
import { complementsRoutes } from './modules/complements/complements.routes.js';
import { visualRoutes } from './modules/visual/visual.routes.js';
import { mediaRoutes, mediaServingRoutes } from './modules/media/media.routes.js';
import { changesRoutes } from './modules/changes/changes.routes.js';
import { eventsAdminRoutes, eventsRoutes } from './modules/events/events.routes.js';
import { webhooksAdminRoutes } from './modules/webhooks/webhooks.admin.routes.js';
import { clientErrorHandler, frameworkErrors, registerRequestGuards } from './http/request-guards.js';
import { MAX_PARAM_LENGTH } from './catalog/limits.js';
import { lazySerializers } from './http/lazy-serializers.js';
import { handedOn, registerStoreForwarding } from './http/store-forwarding.js';

// A caller's request id is echoed when it is a plausible id; anything else gets a fresh UUID.
const REQUEST_ID = /^[A-Za-z0-9._:@/+=-]{1,128}$/;

export interface BuildAppOptions {
  logger?: FastifyServerOptions['logger'];
  /** Compile every response serializer at start (a test checks every response schema compiles). */
  eagerSerializers?: boolean;
}

/** Builds the HTTP application over a container; never listens (server.ts does). */
export async function buildApp(container: Container, options: BuildAppOptions = {}): Promise<FastifyInstance> {
  const { config } = container;
  const serializers = options.eagerSerializers ? undefined : lazySerializers();
  const app = Fastify({
    logger: options.logger ?? {
      level: config.logLevel,
      redact: {
        paths: ['req.headers.authorization', 'req.headers.apikey', 'headers.authorization', 'headers.apikey'],
        censor: '[redacted]',
      },
    },
    bodyLimit: config.bodyLimitBytes,
    requestIdHeader: false,
    genReqId: (req) => {
      const given = req.headers['x-request-id'];
      return typeof given === 'string' && REQUEST_ID.test(given) ? given : randomUUID();
    },
    ajv: { customOptions: { coerceTypes: 'array', useDefaults: true, removeAdditional: false, allErrors: false } },
    return503OnClosing: true,
    ...(serializers ? { schemaController: serializers.schemaController } : {}),
    routerOptions: { maxParamLength: MAX_PARAM_LENGTH },
    frameworkErrors,
    clientErrorHandler,
  }).withTypeProvider<TypeBoxTypeProvider>();
  serializers?.bind(app);

  app.addHook('onRequest', async (request, reply) => {
    reply.header('x-request-id', request.id);
  });
  // The time the server spent on the answer until it was sent (a streamed body: until it started), for
  // browsers' developer tools and for measuring from outside without the network in the figure.
  // A call forwarded to the process serving a large store carries that process's own figure on as
  // `serving;dur=` beside this process's (which includes the hop).
  app.addHook('onSend', async (request, reply, payload) => {
    const serving = handedOn(request) ? reply.getHeader('server-timing') : undefined;
    const own = /app;dur=([\d.]+)/.exec(typeof serving === 'string' ? serving : '')?.[1];
    reply.header('server-timing', `app;dur=${reply.elapsedTime.toFixed(2)}${own ? `, serving;dur=${own}` : ''}`);
    return payload;
  });
  registerReplicaRouting(app, {
    storage: container.storage,
    changeLog: container.changeLog,
    maxLagMs: config.replicaMaxLagMs,
    redis: container.redis,
    redisHealth: container.redisHealth,
  });
  // Bodies are JSON (multipart only where a route says so): a text/plain body is a wrong content type (400).
  app.removeContentTypeParser('text/plain');

  registerRequestGuards(app);
  const knownRoutes = trackKnownRoutes(app);
  registerErrorHandling(app, knownRoutes);

  registerComponents(app);
  registerCaching(app);
  // Answers over 1 KB, when Accept-Encoding allows; unknown codings get the identity encoding.
  // It checks every payload against fetch's Response, which Node loads (undici) on first use: loaded
  // here, so that the first answer of a process does not pay ~20 ms for it.
  void globalThis.Response;
  await app.register(fastifyCompress, {
    global: true,
    threshold: 1024,
    encodings: ['br', 'gzip', 'deflate'],
    customTypes: /^(text\/|application\/(json|x-ndjson|javascript)|image\/svg\+xml)/,
  });
  await app.register(fastifySwagger, openApiOptions());
  await app.register(fastifySwaggerUi, { routePrefix: '/docs' });

  app.get('/openapi.json', { schema: { hide: true } }, async () => app.swagger());
  registerOperations(app, container);
  registerCors(app, container.stores.cors, (path) => knownRoutes.allowedMethods(path));
  await app.register(mediaServingRoutes, { media: container.media });
  await registerConsole(app);
  const forward = await registerStoreForwarding(app, container.storeOwners);

  await app.register(
    async (v1) => {
      await registerTenantAuth(v1, {
        stores: container.stores,
        tokens: container.tokens,
        rateLimitPerMinute: config.rateLimitPerMinute,
        publishableRateLimitPerMinute: config.publishableRateLimitPerMinute,
        redis: container.redis,
        redisHealth: container.redisHealth,
        onStoreWritten: (storeId) => container.complements.want(storeId),
        ...(forward ? { forward } : {}),
      });
      await v1.register(storesRoutes, {
        stores: container.stores,
        freshness: (store) => container.freshness.of(store),
      });
      await v1.register(productsRoutes, {
        products: container.products,
        queries: container.productQueries,
        exporter: container.productExport,
      });
      await v1.register(assetsRoutes, { assets: container.assets });
      await v1.register(searchRoutes, {
        search: container.search,
        recordSearch: (store, search) => container.events.recordSearch(store, search),
      });
      await v1.register(collectionsRoutes, { collections: container.collections });
      await v1.register(complementsRoutes, { complements: container.complements });
      await v1.register(visualRoutes, { visual: container.visual });
      await v1.register(taggingRoutes, { tagging: container.tagging });
      await v1.register(mediaRoutes, {
        media: container.media,
        thumbnails: container.thumbnails,
        publicUrl: config.publicUrl,
      });
      await v1.register(changesRoutes, { changes: container.changes });
      await v1.register(eventsRoutes, { events: container.events });
    },
    { prefix: '/v1' },
  );

  if (config.adminToken) {
    const adminToken = config.adminToken;
    await app.register(
      async (admin) => {
        registerAdminAuth(admin, adminToken, container.tokens);
        await admin.register(storesAdminRoutes, { stores: container.stores, tokens: container.tokens });
        await admin.register(productsAdminRoutes, { mappingProfiles: container.mappingProfiles });
        await admin.register(searchAdminRoutes, {
          stores: container.stores,
          search: container.search,
          searchIndexer: container.searchIndexer,
        });
        await admin.register(complementsAdminRoutes, { complements: container.complements });
        await admin.register(eventsAdminRoutes, {
          events: container.events,
          storeOf: (uuid) => container.stores.getStore(uuid),
        });
        await admin.register(visualAdminRoutes, { visual: container.visual });
        await admin.register(importsAdminRoutes, { imports: container.imports });
        await admin.register(vocabularyAdminRoutes, { vocabulary: container.vocabulary });
        await admin.register(taggingAdminRoutes, { tagging: container.tagging });
        await admin.register(webhooksAdminRoutes, { webhooks: container.webhooks });
      },
      { prefix: '/admin/v1' },
    );
  }

  return app;
}
