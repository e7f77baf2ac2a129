import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { ok } from '../../http/envelope.js';
import { Envelope, standardErrors } from '../../http/schemas.js';
import type { ChangesService } from './changes.service.js';
import { ChangesPageSchema, ChangesQuery, GoneErrorSchema } from './changes.schemas.js';

export const changesRoutes: FastifyPluginAsyncTypebox<{ changes: ChangesService }> = async (app, { changes }) => {
  app.get(
    '/changes',
    {
      config: { storeScoped: true },
      schema: {
        operationId: 'listChanges',
        tags: ['changes'],
        summary: "The store's catalog changes in order, after a sequence the caller keeps",
        description:
          'Products (created, updated, status_changed, deleted), asset links (updated) and collections (created, updated, deleted), oldest first. Keep `next_after` and pass it as `after` next time. A cursor older than the retention (VITRINE_CHANGE_RETENTION_HOURS, default 168) answers 410 with the oldest available sequence. The same events are pushed by webhooks.',
        querystring: ChangesQuery,
        response: {
          200: Envelope(ChangesPageSchema),
          ...standardErrors(),
          410: { ...GoneErrorSchema, description: 'the cursor is older than the retention' },
        },
      },
    },
    async (request) => ok(request, await changes.page(request.store, request.query.after, request.query.limit)),
  );
};
