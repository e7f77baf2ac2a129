import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { ok } from '../../http/envelope.js';
import { Envelope, standardErrors } from '../../http/schemas.js';
import type { StoresService } from '../stores/stores.service.js';
import { StoreUuidParams } from '../stores/stores.schemas.js';
import type { SearchIndexer } from './search-indexer.js';
import type { SearchService } from './search.service.js';
import { SearchRulesBody, SearchRulesResult, SynonymsBody } from './search.schemas.js';
import { storeSettingRoutes } from '../../http/store-setting-routes.js';

const tags = ['admin'];

/** The operator API of text search: synonyms and rebuilding the index. */
export const searchAdminRoutes: FastifyPluginAsyncTypebox<{
  stores: StoresService;
  search: SearchService;
  searchIndexer: SearchIndexer;
}> = async (app, { stores, search, searchIndexer }) => {
  storeSettingRoutes(app, {
    path: 'synonyms',
    tags,
    body: SynonymsBody,
    response: SynonymsBody,
    read: {
      operationId: 'adminGetSynonyms',
      summary: "Read a store's search synonyms",
      handle: async (store) => ({ synonyms: (await stores.getStore(store)).synonyms }),
    },
    replace: {
      operationId: 'adminSetSynonyms',
      summary: "Replace a store's search synonyms (applied at query time)",
      handle: (store, body) => search.setSynonyms(store, body),
    },
  });

  storeSettingRoutes(app, {
    path: 'search-rules',
    tags,
    body: SearchRulesBody,
    response: SearchRulesResult,
    read: {
      operationId: 'adminGetSearchRules',
      summary: "Read a store's merchandising rules (search and browse)",
      handle: (store) => search.getRules(store),
    },
    replace: {
      operationId: 'adminSetSearchRules',
      summary:
        "Replace a store's merchandising rules: pin, hide, boost, bury, per query, collection or always, with optional time windows (422 naming the path of a fault, an attribute no product has included); applied from the next request",
      handle: (store, body) => search.setRules(store, body),
    },
  });

  app.post(
    '/stores/:store_uuid/reindex',
    {
      schema: {
        operationId: 'adminReindexStore',
        tags,
        summary: "Rebuild a store's text index from its products",
        params: StoreUuidParams,
        response: {
          200: Envelope(Type.Object({ indexed: Type.Integer(), seconds: Type.Number() })),
          ...standardErrors(),
        },
      },
    },
    async (request) => ok(request, await searchIndexer.rebuild(request.params.store_uuid)),
  );
};
