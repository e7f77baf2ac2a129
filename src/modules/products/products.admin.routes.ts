import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { ok } from '../../http/envelope.js';
import { Envelope, standardErrors } from '../../http/schemas.js';
import { StoreUuidParams } from '../stores/stores.schemas.js';
import { MappingProfileSchema } from './products.schemas.js';
import type { MappingProfiles } from './mapping-profiles.js';

const tags = ['admin'];

/** The operator API of the products module: a store's mapping profile (CONTRACT §6). */
export const productsAdminRoutes: FastifyPluginAsyncTypebox<{ mappingProfiles: MappingProfiles }> = async (
  app,
  { mappingProfiles },
) => {
  app.get(
    '/stores/:store_uuid/mapping',
    {
      schema: {
        operationId: 'adminGetMapping',
        tags,
        summary: "Read a store's mapping profile",
        params: StoreUuidParams,
        response: { 200: Envelope(MappingProfileSchema), ...standardErrors() },
      },
    },
    async (request) => ok(request, await mappingProfiles.get(request.params.store_uuid)),
  );

  app.put(
    '/stores/:store_uuid/mapping',
    {
      schema: {
        operationId: 'adminSetMapping',
        tags,
        summary: "Replace a store's mapping profile",
        params: StoreUuidParams,
        body: MappingProfileSchema,
        response: { 200: Envelope(MappingProfileSchema), ...standardErrors() },
      },
    },
    async (request) => ok(request, await mappingProfiles.set(request.params.store_uuid, request.body)),
  );

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
