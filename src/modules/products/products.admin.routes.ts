import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { ok } from '../../http/envelope.js';
import { Envelope, standardErrors } from '../../http/schemas.js';
import { StoreUuidParams } from '../stores/stores.schemas.js';
import { MappingProfileSchema } from './products.schemas.js';
import type { MappingProfiles } from './mapping-profiles.js';
import { storeSettingRoutes } from '../../http/store-setting-routes.js';

const tags = ['admin'];

/** The operator API of the products module: a store's mapping profile (CONTRACT §6). */
export const productsAdminRoutes: FastifyPluginAsyncTypebox<{ mappingProfiles: MappingProfiles }> = async (
  app,
  { mappingProfiles },
) => {
  storeSettingRoutes(app, {
    path: 'mapping',
    tags,
    body: MappingProfileSchema,
    response: MappingProfileSchema,
    read: {
      operationId: 'adminGetMapping',
      summary: "Read a store's mapping profile",
      handle: (store) => mappingProfiles.get(store),
    },
    replace: {
      operationId: 'adminSetMapping',
      summary: "Replace a store's mapping profile",
      handle: (store, body) => mappingProfiles.set(store, body),
    },
  });

  app.delete(
    '/stores/:store_uuid/mapping',
    {
      schema: {
        operationId: 'adminDeleteMapping',
        tags,
        summary: "Remove a store's mapping profile (product writes then answer 404)",
        params: StoreUuidParams,
        response: { 200: Envelope(Type.Object({ removed: Type.Boolean() })), ...standardErrors() },
      },
    },
    async (request) => {
      await mappingProfiles.remove(request.params.store_uuid);
      return ok(request, { removed: true });
    },
  );
};
