import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { ok } from '../../http/envelope.js';
import { readYourWritesOf } from '../../http/read-your-writes.js';
import { Envelope, standardErrors } from '../../http/schemas.js';
import { InvalidRequestError } from '../../errors.js';
import type { SearchService } from './search.service.js';
import { SearchQuery, SearchResults } from './search.schemas.js';

export const searchRoutes: FastifyPluginAsyncTypebox<{ search: SearchService }> = async (app, { search }) => {
  app.get(
    '/search',
    {
      config: { storeScoped: true, shopper: true, readYourWrites: true },
      schema: {
        operationId: 'searchProducts',
        tags: ['search'],
        summary: 'Text search over new and active products',
        description:
          "Matches title, category, department, colour and the other text attributes, folding case and accents, with plurals, typo tolerance (1 edit from 5 letters, 2 from 9; never numbers or codes), the last word as a prefix, and the store's synonyms. Exact product_code / parent_code first; phrase and all-words matches above partial ones.",
        querystring: SearchQuery,
        response: { 200: Envelope(SearchResults), ...standardErrors() },
      },
    },
    async (request) => {
      const text = request.query.query ?? request.query.q;
      if (text === undefined) throw new InvalidRequestError("query parameter 'query' is required", 'query');
      return ok(
        request,
        await search.search(
          request.store,
          { query: text, offset: request.query.offset, limit: request.query.limit },
          readYourWritesOf(request),
        ),
      );
    },
  );
};
