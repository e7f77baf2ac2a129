import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { ok } from '../../http/envelope.js';
import { readYourWritesOf } from '../../http/read-your-writes.js';
import { Envelope, standardErrors } from '../../http/schemas.js';
import { InvalidRequestError } from '../../errors.js';
import { FILTERED_WINDOW, type SearchService } from './search.service.js';
import { SearchQuery, SearchResults } from './search.schemas.js';
import { formatLimit } from '../../catalog/limits.js';
import { RANKED_PAGING } from '../../catalog/paging.js';

export const searchRoutes: FastifyPluginAsyncTypebox<{ search: SearchService }> = async (app, { search }) => {
  app.get(
    '/search',
    {
      config: { storeScoped: true, shopper: true, readYourWrites: true },
      schema: {
        operationId: 'searchProducts',
        tags: ['search'],
        summary: 'Text search over new and active products',
        description: `Matches title, category, department, colour and the other text attributes, folding case and accents, with plurals, typo tolerance (1 edit from 5 letters, 2 from 9; never numbers or codes), the last word as a prefix, and the store's synonyms. Exact product_code / parent_code first; phrase and all-words matches above partial ones. \`filters\` (the filter language of search by photo and collections) keeps only the products that satisfy every condition, ranked among the best max(${formatLimit(FILTERED_WINDOW)}, 20 × (offset + limit)) candidates, at most ${formatLimit(RANKED_PAGING.maxOffset)}. Each hit carries its card: parent_code, image_url, price, currency.`,
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
          { query: text, offset: request.query.offset, limit: request.query.limit, filters: request.query.filters },
          readYourWritesOf(request),
        ),
      );
    },
  );
};
