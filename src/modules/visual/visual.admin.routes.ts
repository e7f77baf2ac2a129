import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { ok } from '../../http/envelope.js';
import { Envelope, standardErrors } from '../../http/schemas.js';
import { StoreUuidParams } from '../stores/stores.schemas.js';
import type { VisualService } from './visual.service.js';
import { ImageStatus } from './visual.schemas.js';

const tags = ['admin'];

/** The operator API of search by photo: the image pipeline of a store. */
export const visualAdminRoutes: FastifyPluginAsyncTypebox<{ visual: VisualService }> = async (app, { visual }) => {
  app.get(
    '/stores/:store_uuid/images',
    {
      schema: {
        operationId: 'adminGetImageStatus',
        tags,
        summary:
          'The image pipeline of a store: how many images are pending, indexed, failed, and the latest failures with their reasons',
        params: StoreUuidParams,
        querystring: Type.Object({ failures: Type.Integer({ minimum: 0, maximum: 1000, default: 100 }) }),
        response: { 200: Envelope(ImageStatus), ...standardErrors() },
      },
    },
    async (request) => ok(request, await visual.status(request.params.store_uuid, request.query.failures)),
  );

  app.post(
    '/stores/:store_uuid/images/retry',
    {
      schema: {
        operationId: 'adminRetryImages',
        tags,
        summary: "Queue a store's failed images again (attempts start over)",
        params: StoreUuidParams,
        response: {
          200: Envelope(Type.Object({ store_uuid: Type.String(), requeued: Type.Integer() })),
          ...standardErrors(),
        },
      },
    },
    async (request) => ok(request, await visual.retryFailed(request.params.store_uuid)),
  );
};
