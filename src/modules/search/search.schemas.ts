import { Type } from '@sinclair/typebox';
import { component } from '../../http/components.js';
import { ProductCardFields } from '../../catalog/product-summary.js';
import { Paging, RANKED_PAGING } from '../../catalog/paging.js';
import {
  MAX_FILTERS_LENGTH,
  MAX_QUERY_LENGTH,
  MAX_SYNONYM_GROUPS,
  MAX_SYNONYM_TERM_LENGTH,
  MIN_SYNONYM_TERMS,
} from '../../catalog/limits.js';
import { FILTERS_PARAM_DESCRIPTION } from '../../catalog/filters.js';

export const SearchQuery = Type.Object({
  store_uuid: Type.String(),
  query: Type.Optional(
    Type.String({ maxLength: MAX_QUERY_LENGTH, description: 'search text (alias q); empty or whitespace: 422' }),
  ),
  q: Type.Optional(Type.String({ maxLength: MAX_QUERY_LENGTH, description: 'alias of query' })),
  filters: Type.Optional(Type.String({ maxLength: MAX_FILTERS_LENGTH, description: FILTERS_PARAM_DESCRIPTION })),
  ...Paging(RANKED_PAGING),
});

export const SearchResults = Type.Array(
  component(
    'SearchHit',
    Type.Object({
      product_code: Type.String(),
      title: Type.String(),
      score: Type.Number({
        description:
          'in (0, 1], best first; 1 = exact product_code or parent_code; otherwise (tier + r/(r+1))/4 with tier 2 for the words as a phrase in the title, 1 for all words, 0.5 for all words with some matched only through the resolved audience or colour family ("women" for a Ladieswear department, "green" for Greenish Khaki), 0 for some, r the engine relevance (title and category weighted above other attributes). Equal scores are ordered by product_code.',
      }),
      ...ProductCardFields,
    }),
  ),
);

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
