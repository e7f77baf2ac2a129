import { Type } from '@sinclair/typebox';
import { component } from '../../http/components.js';
import { ProductCardFields } from '../../catalog/product-summary.js';
import { PageLimit, Paging, RANKED_PAGING } from '../../catalog/paging.js';
import {
  MAX_FILTERS_LENGTH,
  MAX_QUERY_LENGTH,
  MAX_SYNONYM_GROUPS,
  MAX_SYNONYM_TERM_LENGTH,
  MIN_SYNONYM_TERMS,
} from '../../catalog/limits.js';
import { FILTERS_PARAM_DESCRIPTION } from '../../catalog/filters.js';
import {
  DEFAULT_FACET_LIMIT,
  MAX_FACET_LIMIT,
  MAX_FACETS,
  MAX_SUGGEST_PREFIX,
  MAX_SUGGESTIONS,
  DEFAULT_SUGGESTIONS,
  MAX_RULE_ID_LENGTH,
  MAX_SEARCH_RULES,
  MAX_RULE_ITEMS,
} from '../../catalog/limits.js';
import { MAX_BOOST_WEIGHT } from './search-rules.js';

/** Who searches: with either, the server records the search as the shopper's search event. */
const ShopperParams = {
  shopper_id: Type.Optional(
    Type.String({
      minLength: 1,
      maxLength: 200,
      description:
        'the shopper (stored only as a keyed hash): the search is recorded as their search event, and in relevance order their taste (the categories, colours, brands and price band of their own events) reorders hits within each relevance band, never a partial match above a full one',
    }),
  ),
  session_id: Type.Optional(
    Type.String({ minLength: 1, maxLength: 200, description: 'the session: the search is recorded as a search event' }),
  ),
};

export const SORTS = ['relevance', 'newest', 'price_asc', 'price_desc', 'name_asc', 'trending', 'popular'] as const;
const Sort = Type.Union(
  SORTS.map((s) => Type.Literal(s)),
  {
    description:
      'relevance (default with words), newest (default without: last stored first), price_asc / price_desc (products without a valid price last), name_asc, trending (shopper events, time-decayed), popular (purchases in 30 days); ties by product_code, so pages never overlap. Buried products come after the rest, pinned ones hold their positions on page 1, whatever the sort.',
  },
);
/** `true` is today's meaning of search by photo (one card per family), kept as an alias of `parent`. */
export const GROUP_VARIANTS_VALUES = ['colour', 'parent', 'false', 'true'] as const;
export const GroupVariantsParam = (defaultValue: 'colour' | 'true') =>
  Type.Union(
    GROUP_VARIANTS_VALUES.map((v) => Type.Literal(v)),
    {
      default: defaultValue,
      description:
        'colour: one card per family (products sharing a parent_code, and the product whose code that is) and Colour; parent (alias true): one card per family; false: every SKU. A card shows the variant that ranks best in the order asked for.',
    },
  );

export const SearchQuery = Type.Object({
  store_uuid: Type.String(),
  query: Type.Optional(
    Type.String({ maxLength: MAX_QUERY_LENGTH, description: 'search text (alias q); empty or whitespace: 422' }),
  ),
  q: Type.Optional(Type.String({ maxLength: MAX_QUERY_LENGTH, description: 'alias of query' })),
  filters: Type.Optional(Type.String({ maxLength: MAX_FILTERS_LENGTH, description: FILTERS_PARAM_DESCRIPTION })),
  sort: Type.Optional(Sort),
  group_variants: GroupVariantsParam('colour'),
  ...ShopperParams,
  ...Paging(RANKED_PAGING),
});

export const SearchResults = Type.Array(
  component(
    'SearchHit',
    Type.Object({
      product_code: Type.String(),
      title: Type.String(),
      score: Type.Optional(
        Type.Number({
          description:
            'in (0, 1], best first; 1 = exact product_code or parent_code; otherwise (tier + r/(r+1))/4 with tier 2 for the words as a phrase in the title, 1 for all words, 0.5 for all words with some matched only through the resolved audience or colour family ("women" for a Ladieswear department, "green" for Greenish Khaki), 0 for some, r the engine relevance (title and category weighted above other attributes). Equal scores are ordered by product_code. Absent when browsing (no words).',
        }),
      ),
      ...ProductCardFields,
      variant_count: Type.Optional(
        Type.Integer({
          description: "grouped: the visible SKUs of the card's group (family, and colour with group_variants=colour)",
        }),
      ),
      sizes: Type.Optional(
        Type.Array(Type.String(), {
          description:
            "grouped: the group's sizes in stock (Stock absent or above 0), in size-chart order (XXS … 5XL, then numbers ascending, then others as written)",
        }),
      ),
    }),
  ),
);

export const ListingBody = Type.Object(
  {
    query: Type.Optional(
      Type.String({
        maxLength: MAX_QUERY_LENGTH,
        description: 'words; absent or empty: browse every visible product (or the collection)',
      }),
    ),
    filters: Type.Optional(
      Type.Record(Type.String(), Type.Unknown(), {
        description: `an object in the catalog's filter language (see GET /v1/search \`filters\`); a wrong shape: 422 naming the path`,
      }),
    ),
    facets: Type.Optional(
      Type.Array(Type.String({ minLength: 1, maxLength: 200 }), {
        maxItems: MAX_FACETS,
        description:
          'attribute names to count values of over the whole result (families after grouping); disjunctive: a facet ignores its own filter',
      }),
    ),
    facet_limit: Type.Optional(Type.Integer({ minimum: 1, maximum: MAX_FACET_LIMIT, default: DEFAULT_FACET_LIMIT })),
    sort: Type.Optional(Sort),
    group_variants: GroupVariantsParam('colour'),
    ...ShopperParams,
    collection_id: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 200,
        description:
          "browse (or search within) a collection's members, in its order unless sort says otherwise; unknown: 404",
      }),
    ),
    ...Paging(RANKED_PAGING),
  },
  { additionalProperties: false },
);

const FacetValues = Type.Array(Type.Object({ value: Type.String(), count: Type.Integer() }));

export const ListingResult = component(
  'SearchListing',
  Type.Object({
    hits: SearchResults,
    total: Type.Integer({ description: 'hits after rules, filters and grouping (cards)' }),
    facets: Type.Record(Type.String(), FacetValues, {
      description: 'per facet asked for: [{value, count}] most frequent first, at most facet_limit',
    }),
    price_range: Type.Union([Type.Object({ min: Type.Number(), max: Type.Number() }), Type.Null()], {
      description: 'min and max valid Selling Price over the result, ignoring a Selling Price filter; null when none',
    }),
    applied_rules: Type.Array(Type.String(), {
      description: 'ids of the merchandising rules that acted on this result',
    }),
    corrected_query: Type.Union([Type.String(), Type.Null()], {
      description: 'the spelling the catalog supports when a word was not in it (the hits are for it)',
    }),
    relaxed: Type.Boolean({
      description: 'nothing had every word: the hits are for the query with its least specific words dropped',
    }),
  }),
);

export const SuggestQuery = Type.Object({
  store_uuid: Type.String(),
  prefix: Type.String({ maxLength: MAX_SUGGEST_PREFIX, description: 'what the shopper has typed so far' }),
  limit: PageLimit(MAX_SUGGESTIONS, DEFAULT_SUGGESTIONS, 'suggestions of each kind'),
});

export const SuggestResult = component(
  'SearchSuggestions',
  Type.Object({
    queries: Type.Array(Type.Object({ text: Type.String(), hits: Type.Integer() }), {
      description:
        "completions of the last word from the catalog's words, most frequent first (typo-tolerant from the third character); hits: products carrying the completed word (with earlier words: of the rarest, an upper bound)",
    }),
    products: Type.Array(Type.Object({ product_code: Type.String(), title: Type.String(), image_url: Type.String() }), {
      description:
        'the best products for the best completion (for the text as typed when nothing completes it); when more than 20,000 products carry its words, the best of an evenly spread sample of about 2,000 of them',
    }),
    categories: Type.Array(Type.Object({ value: Type.String(), count: Type.Integer() }), {
      description: 'Category labels with a word starting with the last word typed; count: cards (families and colours)',
    }),
  }),
);

const RuleFilters = Type.Record(Type.String(), Type.Unknown(), { description: "the catalog's filter language" });
export const SearchRuleSchema = component(
  'SearchRule',
  Type.Object({
    id: Type.String({ minLength: 1, maxLength: MAX_RULE_ID_LENGTH }),
    when: Type.Unknown({
      description:
        '{"query": "summer dress", "match": "exact" | "contains"} (words folded), {"collection_id": "…"} (browsing it) or {"always": true}',
    }),
    pin: Type.Optional(
      Type.Array(
        Type.Object({
          product_code: Type.String(),
          position: Type.Integer({ minimum: 1, maximum: RANKED_PAGING.maxLimit }),
        }),
        {
          maxItems: MAX_RULE_ITEMS,
          description:
            'positions on page 1 (1-based) held whatever the sort, when the product is visible and passes the filters',
        },
      ),
    ),
    hide: Type.Optional(
      Type.Array(Type.String(), {
        maxItems: MAX_RULE_ITEMS,
        description: 'never shown: hits, totals and facets agree',
      }),
    ),
    boost: Type.Optional(
      Type.Array(
        Type.Object({
          filters: RuleFilters,
          weight: Type.Optional(
            Type.Number({ minimum: 0, maximum: MAX_BOOST_WEIGHT, default: 1, description: 'above 0' }),
          ),
        }),
        {
          maxItems: MAX_RULE_ITEMS,
          description: 'relevance of matching products multiplied by 1 + weight (relevance order only)',
        },
      ),
    ),
    bury: Type.Optional(
      Type.Array(Type.Object({ filters: RuleFilters }), {
        maxItems: MAX_RULE_ITEMS,
        description: 'after every other product, whatever the sort',
      }),
    ),
    active_from: Type.Optional(Type.String({ format: 'date-time' })),
    active_until: Type.Optional(Type.String({ format: 'date-time', description: 'exclusive' })),
  }),
);

export const SearchRulesBody = Type.Object(
  {
    rules: Type.Array(Type.Unknown(), {
      maxItems: MAX_SEARCH_RULES,
      description: 'SearchRule objects, applied in order (an earlier pin keeps its position)',
    }),
  },
  { additionalProperties: false },
);
export const SearchRulesResult = Type.Object({ rules: Type.Array(SearchRuleSchema) });

export const SynonymsBody = Type.Object(
  {
    synonyms: Type.Array(
      Type.Array(Type.String({ minLength: 1, maxLength: MAX_SYNONYM_TERM_LENGTH }), { minItems: MIN_SYNONYM_TERMS }),
      {
        maxItems: MAX_SYNONYM_GROUPS,
        description:
          'groups of equivalent terms, e.g. [["tee", "t-shirt"], ["sneakers", "sports shoes"]]; applied at query time',
      },
    ),
  },
  { additionalProperties: false },
);
