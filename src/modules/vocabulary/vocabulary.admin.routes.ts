import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import {
  StoreLanguageBody,
  StoreLanguageSchema,
  VocabularyOverridesSchema,
  VocabularyReportSchema,
} from './vocabulary.schemas.js';
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
  storeSettingRoutes(app, {
    path: 'language',
    tags,
    body: StoreLanguageBody,
    response: StoreLanguageSchema,
    read: {
      operationId: 'adminGetStoreLanguage',
      summary: "A store's catalog language, and the language its text index answers in",
      handle: (store) => vocabulary.language(store),
    },
    replace: {
      operationId: 'adminSetStoreLanguage',
      summary: "Set a store's catalog language",
      description:
        "The language text search, suggestions and the catalog vocabulary read the store's catalog in (stemmer, stop words, elisions, compounds; garment, audience and colour words). The catalog vocabulary follows at once; the text index is rebuilt in the background and the old one answers until the new one commits (`reindexing` true meanwhile; GET /v1/stores `indexes.pending.search` counts it). An unsupported tag: 422 listing the supported ones.",
      handle: (store, body) => vocabulary.setLanguage(store, body),
    },
  });
};
