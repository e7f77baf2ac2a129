import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { ok } from '../../http/envelope.js';
import { Envelope, standardErrors, StoreUuidQuery } from '../../http/schemas.js';
import type { TaggingService } from './tagging.service.js';
import { AcceptedSchema, RejectedSchema, ReviewBody, SuggestionSchema, SuggestionsQuery } from './tagging.schemas.js';

const tags = ['tagging'];
const config = { storeScoped: true } as const;

/** The review queue of suggestions from product photos. */
export const taggingRoutes: FastifyPluginAsyncTypebox<{ tagging: TaggingService }> = async (app, { tagging }) => {
  app.get(
    '/products/suggestions',
    {
      config,
      schema: {
        operationId: 'listTagSuggestions',
        tags,
        summary: 'Suggested type, colour and audience from product photos, most confident first',
        description:
          "Each product's stored photo vector read by the tagger: a garment type, colour family and audience with a calibrated confidence, said in the store's own words (the label its catalog already uses for that concept; otherwise the built-in word, `new_label: true`). Fields the product already says (in whatever words) are not suggested. A product whose photo could not be read is listed with `value: null` and the `reason`. The header X-Total-Count holds the total.",
        querystring: SuggestionsQuery,
        response: { 200: Envelope(Type.Array(SuggestionSchema)), ...standardErrors() },
      },
    },
    async (request, reply) => {
      const { store_uuid: _, min_confidence, ...query } = request.query;
      const { items, total } = await tagging.list(request.store, { ...query, minConfidence: min_confidence });
      reply.header('x-total-count', String(total));
      return ok(request, items);
    },
  );

  app.post(
    '/products/suggestions/accept',
    {
      config,
      schema: {
        operationId: 'acceptTagSuggestions',
        tags,
        summary: 'Accept suggestions, as offered or corrected',
        description:
          'Each item is written as a product update of its field (Category, Colour or Department): the change feed, webhooks, quality checks and collections follow. `value` corrects the suggestion. An item fails alone (a product deleted meanwhile, no suggestion and no value, a value a product rule refuses), with the reason.',
        querystring: StoreUuidQuery,
        body: ReviewBody,
        response: { 200: Envelope(AcceptedSchema), ...standardErrors(413) },
      },
    },
    async (request) => ok(request, await tagging.accept(request.store, request.body)),
  );

  app.post(
    '/products/suggestions/reject',
    {
      config,
      schema: {
        operationId: 'rejectTagSuggestions',
        tags,
        summary: 'Reject suggestions (not offered again for the same photo)',
        querystring: StoreUuidQuery,
        body: ReviewBody,
        response: { 200: Envelope(RejectedSchema), ...standardErrors(413) },
      },
    },
    async (request) => ok(request, await tagging.reject(request.store, request.body)),
  );
};
