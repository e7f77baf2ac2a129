import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { ok } from '../../http/envelope.js';
import { Envelope, standardErrors, StoreUuidQuery } from '../../http/schemas.js';
import type { StoresService } from './stores.service.js';
import { StoreDetailsSchema, TokenStoresSchema } from './stores.schemas.js';

export const storesRoutes: FastifyPluginAsyncTypebox<{ stores: StoresService }> = async (app, { stores }) => {
  app.get(
    '/stores',
    {
      config: { storeScoped: true, shopper: true },
      schema: {
        operationId: 'getStore',
        tags: ['stores'],
        summary: 'Retrieve store details',
        querystring: StoreUuidQuery,
        response: { 200: Envelope(StoreDetailsSchema), ...standardErrors() },
      },
    },
    async (request) => ok(request, await stores.describeStore(request.store)),
  );

  app.get(
    '/workspace/stores',
    {
      config: { shopper: true },
      schema: {
        operationId: 'listTokenStores',
        tags: ['stores'],
        summary: 'List the stores this token may call (extension)',
        description:
          "Every store of the token's workspace, oldest first; a publishable key sees only the stores it names. The console's store picker reads it.",
        response: { 200: Envelope(TokenStoresSchema), ...standardErrors() },
      },
    },
    async (request) => ok(request, await stores.storesOfToken(request.auth!)),
  );
};
