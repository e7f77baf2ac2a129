import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { ok } from '../../http/envelope.js';
import { Envelope, standardErrors } from '../../http/schemas.js';
import type { VisualService } from '../visual/visual.service.js';
import { ImageStatus } from '../visual/visual.schemas.js';
import { InvalidRequestError } from '../../errors.js';
import type { StoresService } from '../stores/stores.service.js';
import type { SearchIndexer } from '../search/search-indexer.js';
import { SynonymsBody } from '../search/search.schemas.js';
import type { RecommendationsService } from '../recommendations/recommendations.service.js';
import {
  CreatedStoreSchema, CreatedTokenSchema, CreateStoreBody, CreateTokenBody, CreateWorkspaceBody, MappingProfileSchema,
  RevokedTokenSchema, StoreListItemSchema, StoreUuidParams, TokenIdParams, WorkspaceSchema,
} from '../stores/stores.schemas.js';
import type { Static } from '@sinclair/typebox';

const tags = ['admin'];

/** The operator API (CONTRACT §2): the same operations as the CLI, guarded by VITRINE_ADMIN_TOKEN. */
export const adminRoutes: FastifyPluginAsyncTypebox<{ stores: StoresService; searchIndexer: SearchIndexer; recommendations: RecommendationsService; visual: VisualService }> = async (app, { stores, searchIndexer, recommendations, visual }) => {
  app.get('/workspaces', { schema: { tags, summary: 'List workspaces', response: { 200: Envelope(Type.Array(WorkspaceSchema)), ...standardErrors() } } },
    async (request) => ok(request, await stores.listWorkspaces()));

  app.post('/workspaces', { schema: { tags, summary: 'Create a workspace (idempotent by name)', body: CreateWorkspaceBody, response: { 201: Envelope(WorkspaceSchema), 200: Envelope(WorkspaceSchema), ...standardErrors() } } },
    async (request, reply) => {
      const { created, ...workspace } = await stores.createWorkspace(request.body.name);
      return reply.code(created ? 201 : 200).send(ok(request, workspace));
    });

  app.get('/stores', { schema: { tags, summary: 'List every store', response: { 200: Envelope(Type.Array(StoreListItemSchema)), ...standardErrors() } } },
    async (request) => ok(request, await stores.listStores()));

  app.post('/stores', { schema: { tags, summary: 'Register a store and issue a token for its workspace', body: CreateStoreBody, response: { 201: Envelope(CreatedStoreSchema), ...standardErrors() } } },
    async (request, reply) => {
      const body = request.body as Static<typeof CreateStoreBody>;
      let workspaceName = body.workspace_name;
      if (!workspaceName && body.workspace_id) {
        workspaceName = (await stores.listWorkspaces()).find((w) => w.workspace_id === body.workspace_id)?.name;
        if (!workspaceName) throw new InvalidRequestError(`workspace ${body.workspace_id} not found`, 'workspace_id');
      }
      if (!workspaceName) throw new InvalidRequestError("body 'workspace_name' is required", 'workspace_name');
      const created = await stores.createStore({
        workspaceName, name: body.name, website: body.website, countries: body.country, channels: body.channels,
        taxonomy: body.taxonomy, linkedStoreId: body.linked_store_id,
      });
      return reply.code(201).send(ok(request, created));
    });

  app.post('/tokens', { schema: { tags, summary: 'Issue another token for a workspace', body: CreateTokenBody, response: { 201: Envelope(CreatedTokenSchema), ...standardErrors() } } },
    async (request, reply) => reply.code(201).send(ok(request, await stores.createToken(request.body.workspace_id))));

  app.delete('/tokens/:token_id', { schema: { tags, summary: 'Revoke a token (effective at once on every process)', params: TokenIdParams, response: { 200: Envelope(RevokedTokenSchema), ...standardErrors() } } },
    async (request) => ok(request, await stores.revokeToken(request.params.token_id)));

  app.get('/stores/:store_uuid/mapping', { schema: { tags, summary: 'Read a store\'s mapping profile', params: StoreUuidParams, response: { 200: Envelope(MappingProfileSchema), ...standardErrors() } } },
    async (request) => ok(request, await stores.getMappingProfile(request.params.store_uuid)));

  app.put('/stores/:store_uuid/mapping', { schema: { tags, summary: 'Replace a store\'s mapping profile', params: StoreUuidParams, body: MappingProfileSchema, response: { 200: Envelope(MappingProfileSchema), ...standardErrors() } } },
    async (request) => ok(request, await stores.setMappingProfile(request.params.store_uuid, request.body)));

  app.delete('/stores/:store_uuid/mapping', { schema: { tags, summary: 'Remove a store\'s mapping profile (product writes then answer 404)', params: StoreUuidParams, response: { 200: Envelope(Type.Object({ removed: Type.Boolean() })), ...standardErrors() } } },
    async (request) => { await stores.removeMappingProfile(request.params.store_uuid); return ok(request, { removed: true }); });

  app.get('/stores/:store_uuid/synonyms', { schema: { tags, summary: 'Read a store\'s search synonyms', params: StoreUuidParams, response: { 200: Envelope(SynonymsBody), ...standardErrors() } } },
    async (request) => ok(request, { synonyms: (await stores.getStore(request.params.store_uuid)).synonyms }));

  app.put('/stores/:store_uuid/synonyms', { schema: { tags, summary: 'Replace a store\'s search synonyms (applied at query time)', params: StoreUuidParams, body: SynonymsBody, response: { 200: Envelope(SynonymsBody), ...standardErrors() } } },
    async (request) => ok(request, await stores.setSynonyms(request.params.store_uuid, request.body)));

  app.post('/stores/:store_uuid/reindex', { schema: { tags, summary: 'Rebuild a store\'s text index from its products', params: StoreUuidParams, response: { 200: Envelope(Type.Object({ indexed: Type.Integer(), seconds: Type.Number() })), ...standardErrors() } } },
    async (request) => { await stores.getStore(request.params.store_uuid); return ok(request, await searchIndexer.rebuild(request.params.store_uuid)); });

  const TaxonomySchema = Type.Object({
    groups: Type.Record(Type.String(), Type.Array(Type.String()), { description: 'group label -> categories (product Category values, case-insensitive)' }),
    complements: Type.Record(Type.String(), Type.Array(Type.String()), { description: 'group label -> complementary group labels, in order of preference' }),
  });
  const ProductParams = Type.Object({ store_uuid: Type.String(), product_code: Type.String() });

  app.get('/stores/:store_uuid/complements', { schema: { tags, summary: 'Read a store\'s complement taxonomy', params: StoreUuidParams, response: { 200: Envelope(TaxonomySchema), ...standardErrors() } } },
    async (request) => ok(request, recommendations.taxonomyOf(await stores.getStore(request.params.store_uuid))));

  app.put('/stores/:store_uuid/complements', { schema: { tags, summary: 'Replace a store\'s complement taxonomy', params: StoreUuidParams, body: TaxonomySchema, response: { 200: Envelope(TaxonomySchema), ...standardErrors() } } },
    async (request) => { await stores.getStore(request.params.store_uuid); return ok(request, await recommendations.setTaxonomy(request.params.store_uuid, request.body)); });

  app.put('/stores/:store_uuid/complements/:product_code', {
    schema: { tags, summary: 'Pin complements for a product (they come first)', params: ProductParams, body: Type.Object({ product_codes: Type.Array(Type.String(), { maxItems: 100 }) }, { additionalProperties: false }), response: { 200: Envelope(Type.Object({ product_code: Type.String(), pinned: Type.Array(Type.String()) })), ...standardErrors() } },
  }, async (request) => { await stores.getStore(request.params.store_uuid); return ok(request, await recommendations.setPins(request.params.store_uuid, request.params.product_code, request.body.product_codes)); });

  app.get('/stores/:store_uuid/images', {
    schema: { tags, summary: 'The image pipeline of a store: how many images are pending, indexed, failed, and the latest failures with their reasons', params: StoreUuidParams, querystring: Type.Object({ failures: Type.Integer({ minimum: 0, maximum: 1000, default: 100 }) }), response: { 200: Envelope(ImageStatus), ...standardErrors() } },
  }, async (request) => ok(request, await visual.status(request.params.store_uuid, request.query.failures)));

  app.post('/stores/:store_uuid/images/retry', {
    schema: { tags, summary: 'Queue a store\'s failed images again (attempts start over)', params: StoreUuidParams, response: { 200: Envelope(Type.Object({ store_uuid: Type.String(), requeued: Type.Integer() })), ...standardErrors() } },
  }, async (request) => ok(request, await visual.retryFailed(request.params.store_uuid)));
};
