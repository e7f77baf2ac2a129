import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { ok } from '../../http/envelope.js';
import { readYourWritesOf } from '../../http/read-your-writes.js';
import { Envelope, standardErrors } from '../../http/schemas.js';
import { InvalidRequestError } from '../../errors.js';
import type { SearchService } from './search.service.js';
import {
  ListingBody,
  ListingResult,
  SearchQuery,
  SearchResults,
  SuggestQuery,
  SuggestResult,
} from './search.schemas.js';
import type { GroupVariants } from '../../catalog/variants.js';
import type { Store } from '../stores/store.js';

/** `true` is search by photo's historical value: one card per family. */
const groupOf = (value: string): GroupVariants => (value === 'true' ? 'parent' : (value as GroupVariants));

const TOTAL_HEADER = {
  'X-Total-Count': Type.Integer({ description: 'hits after filters, rules and grouping (cards)' }),
};

/** Records a search answered for an identified shopper or session (the events module). */
export type RecordSearch = (
  store: Store,
  search: { query: string; hits: number; shopperId?: string; sessionId?: string },
) => Promise<void>;

export const searchRoutes: FastifyPluginAsyncTypebox<{ search: SearchService; recordSearch: RecordSearch }> = async (
  app,
  { search, recordSearch },
) => {
  app.get(
    '/search',
    {
      config: { storeScoped: true, shopper: true, readYourWrites: true },
      schema: {
        operationId: 'searchProducts',
        tags: ['search'],
        summary: 'Text search over new and active products',
        description: `Matches title, category, department, colour and the other text attributes, folding case and accents, with plurals, typo tolerance (1 edit from 5 letters, 2 from 9; never numbers or codes), the last word as a prefix, and the store's synonyms. Exact product_code / parent_code first; phrase and all-words matches above the rest; when no product has every word, the query relaxed (its most common words dropped first). \`filters\` (the filter language of search by photo and collections) keeps the products that satisfy every condition; \`group_variants\` shows one card per family and colour by default; \`sort\` orders them; the store's merchandising rules apply. Each hit carries its card: parent_code, image_url, price, currency (and, grouped, variant_count and sizes). The header X-Total-Count holds the hits after filters and grouping. For facets, browsing and the rest of a listing page: POST /v1/search/query.`,
        querystring: SearchQuery,
        response: { 200: { ...Envelope(SearchResults), headers: TOTAL_HEADER }, ...standardErrors() },
      },
    },
    async (request, reply) => {
      const { query, q, filters, sort, group_variants: group, offset, limit } = request.query;
      const { shopper_id: shopperId, session_id: sessionId } = request.query;
      const text = query ?? q;
      if (text === undefined) throw new InvalidRequestError("query parameter 'query' is required", 'query');
      const found = await search.search(
        request.store,
        { query: text, filters, sort, group: groupOf(group), offset, limit, shopperId },
        readYourWritesOf(request),
      );
      void reply.header('X-Total-Count', String(found.total));
      await recordSearch(request.store, { query: text, hits: found.total, shopperId, sessionId });
      return ok(request, found.hits);
    },
  );

  app.post(
    '/search/query',
    {
      config: { storeScoped: true, shopper: true, readYourWrites: true },
      schema: {
        operationId: 'queryListing',
        tags: ['search'],
        summary: 'A listing page: search or browse with filters, facets, sort, grouping and rules',
        description:
          "Everything a search page or a category page shows in one call. Without `query` (or with an empty one) it browses every visible product, or the members of `collection_id` in the collection's order; `sort` defaults to relevance with words and newest without. `facets` count values over the whole result (families after grouping), each ignoring its own filter (disjunctive: with Colour = Red chosen, the Colour facet still counts Blue). `price_range` ignores a Selling Price filter. A `Size` filter matches only in-stock SKUs (Stock absent or above 0). Merchandising rules apply (pins, hides, boosts, buries; see /admin/v1/stores/{store_uuid}/search-rules) and `applied_rules` names those that acted. Publishable keys allowed.",
        querystring: Type.Object({ store_uuid: Type.String() }),
        body: ListingBody,
        response: { 200: Envelope(ListingResult), ...standardErrors() },
      },
    },
    async (request) => {
      const body = request.body;
      const answer = await search.listing(
        request.store,
        {
          query: body.query,
          filters: body.filters,
          facets: body.facets,
          facetLimit: body.facet_limit,
          sort: body.sort,
          group: groupOf(body.group_variants),
          collectionId: body.collection_id,
          offset: body.offset,
          limit: body.limit,
          shopperId: body.shopper_id,
        },
        readYourWritesOf(request),
      );
      if (body.query?.trim())
        await recordSearch(request.store, {
          query: body.query,
          hits: answer.total,
          shopperId: body.shopper_id,
          sessionId: body.session_id,
        });
      return ok(request, answer);
    },
  );

  app.get(
    '/search/suggest',
    {
      config: { storeScoped: true, shopper: true, readYourWrites: true },
      schema: {
        operationId: 'suggestSearches',
        tags: ['search'],
        summary: 'Suggestions while typing: completions, products, categories',
        querystring: SuggestQuery,
        response: { 200: Envelope(SuggestResult), ...standardErrors() },
      },
    },
    async (request) =>
      ok(
        request,
        await search.suggest(
          request.store,
          { prefix: request.query.prefix, limit: request.query.limit },
          readYourWritesOf(request),
        ),
      ),
  );
};
