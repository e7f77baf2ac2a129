import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { ok } from '../../http/envelope.js';
import { Envelope, standardErrors, StoreUuidQuery } from '../../http/schemas.js';
import type { StoresService } from './stores.service.js';
import { StoreDetailsWithIndexes, TokenStoresSchema } from './stores.schemas.js';
import type { Freshness } from '../changes/index-freshness.js';
import type { Store } from './store.js';

export const storesRoutes: FastifyPluginAsyncTypebox<{
  stores: StoresService;
  /** How far behind the catalog each of a store's indexes is (the changes module). */
  freshness: (store: Store) => Promise<Freshness>;
}> = async (app, { stores, freshness }) => {
  app.get(
    '/stores',
    {
      config: { storeScoped: true, shopper: true },
      schema: {
        operationId: 'getStore',
        tags: ['stores'],
        summary: 'Retrieve store details',
        description:
          '`indexes` (extension): per index (search, vocabulary, facets, complements, collections, photos) the catalog changes it has not applied yet (photos: and the images waiting to be embedded), and `caught_up` once every one is 0. After a large import, answers settle when it is true.',
        querystring: StoreUuidQuery,
        response: { 200: Envelope(StoreDetailsWithIndexes), ...standardErrors() },
      },
    },
    async (request) => {
      const [details, indexes] = await Promise.all([stores.describeStore(request.store), freshness(request.store)]);
      return ok(request, { ...details, indexes });
    },
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
