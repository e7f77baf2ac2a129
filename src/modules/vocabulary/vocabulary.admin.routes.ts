import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { ok } from '../../http/envelope.js';
import { Envelope, standardErrors } from '../../http/schemas.js';
import { StoreUuidParams } from '../stores/stores.schemas.js';
import { VocabularyOverridesSchema, VocabularyReportSchema } from './vocabulary.schemas.js';
import type { VocabularyService } from './vocabulary.service.js';

const tags = ['admin'];

/** The operator API of the catalog vocabulary: how a store's labels resolve, and the store's overrides. */
export const vocabularyAdminRoutes: FastifyPluginAsyncTypebox<{ vocabulary: VocabularyService }> = async (
  app,
  { vocabulary },
) => {
  app.get(
    '/stores/:store_uuid/vocabulary',
    {
      schema: {
        operationId: 'adminGetVocabulary',
        tags,
        summary: "How a store's category, department and colour labels resolve",
        description:
          'Every Category, Department and Colour label of the store (any status) with its product count, what the catalog vocabulary resolved it to (group and garment concept, audience, colour family and lightness) and how: override, taxonomy, exact, folded (case, punctuation, plural), head word, sub category, titles (majority of the products\' titles), per product (generic labels such as "Accessories", placed from each title) or unplaced.',
        params: StoreUuidParams,
        response: { 200: Envelope(VocabularyReportSchema), ...standardErrors() },
      },
    },
    async (request) => ok(request, await vocabulary.report(request.params.store_uuid)),
  );

  app.put(
    '/stores/:store_uuid/vocabulary',
    {
      schema: {
        operationId: 'adminSetVocabulary',
        tags,
        summary: "Replace a store's vocabulary overrides",
        description:
          'Replaces every section (an absent section is emptied). Labels match however written (case, punctuation, plural); an override for a label the store does not have yet is kept and applies when it appears. Applied at once to complete the look; search and collections follow the products concerned within a moment. 422 names an unknown group, audience or colour family. Answers the new report.',
        params: StoreUuidParams,
        body: VocabularyOverridesSchema,
        response: { 200: Envelope(VocabularyReportSchema), ...standardErrors() },
      },
    },
    async (request) => ok(request, await vocabulary.setOverrides(request.params.store_uuid, request.body)),
  );
};
