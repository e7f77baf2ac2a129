import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { storeSettingRoutes } from '../../http/store-setting-routes.js';
import type { TaggingService } from './tagging.service.js';
import { TaggingSettingsBody, TaggingSettingsSchema } from './tagging.schemas.js';

/** The operator API of tagging: auto-apply thresholds and accuracy on reviewed suggestions. */
export const taggingAdminRoutes: FastifyPluginAsyncTypebox<{ tagging: TaggingService }> = async (app, { tagging }) => {
  storeSettingRoutes(app, {
    path: 'tagging',
    tags: ['admin'],
    body: TaggingSettingsBody,
    response: TaggingSettingsSchema,
    read: {
      operationId: 'adminGetTagging',
      summary: "A store's auto-apply thresholds, the tagger's defaults and accuracy on reviewed suggestions",
      handle: (store) => tagging.settings(store),
    },
    replace: {
      operationId: 'adminSetTagging',
      summary: "Set a store's auto-apply thresholds",
      description:
        'Per field, the confidence from which a suggestion is written to products that lack the field (never over a value a product has); null or absent: off (the default). Applied at once and then every 10 s by the tagging worker.',
      handle: (store, body) => tagging.setSettings(store, body),
    },
  });
};
