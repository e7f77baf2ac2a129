import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { VocabularyOverridesSchema, VocabularyReportSchema } from './vocabulary.schemas.js';
import type { VocabularyService } from './vocabulary.service.js';
import { storeSettingRoutes } from '../../http/store-setting-routes.js';

const tags = ['admin'];

/** The operator API of the catalog vocabulary: how a store's labels resolve, and the store's overrides. */
export const vocabularyAdminRoutes: FastifyPluginAsyncTypebox<{ vocabulary: VocabularyService }> = async (
  app,
  { vocabulary },
) => {
  storeSettingRoutes(app, {
    path: 'vocabulary',
    tags,
    body: VocabularyOverridesSchema,
    response: VocabularyReportSchema,
    read: {
      operationId: 'adminGetVocabulary',
      summary: "How a store's category, department and colour labels resolve",
      description:
        'Every Category, Department and Colour label of the store (any status) with its product count, what the catalog vocabulary resolved it to (group and garment concept, audience, colour family and lightness) and how: override, taxonomy, exact, folded (case, punctuation, plural), head word, sub category, titles (majority of the products\' titles), per product (generic labels such as "Accessories", placed from each title) or unplaced.',
      handle: (store) => vocabulary.report(store),
    },
    replace: {
      operationId: 'adminSetVocabulary',
      summary: "Replace a store's vocabulary overrides",
      description:
        'Replaces every section (an absent section is emptied). Labels match however written (case, punctuation, plural); an override for a label the store does not have yet is kept and applies when it appears. Applied at once to complete the look; search and collections follow the products concerned within a moment. 422 names an unknown group, audience or colour family. Answers the new report.',
      handle: (store, body) => vocabulary.setOverrides(store, body),
    },
  });
};
