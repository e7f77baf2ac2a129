import {
  DEFAULT_FACET_LIMIT,
  MAX_FACET_LIMIT,
  MAX_FACETS,
  MAX_FILTERS_LENGTH,
  MAX_PRODUCT_CODE_LENGTH,
} from '../../catalog/limits.js';
import { FILTERS_PARAM_DESCRIPTION } from '../../catalog/filters.js';
import { Type } from '@sinclair/typebox';
import { component } from '../../http/components.js';
import { QUALITY_REASONS } from './quality-checks.js';
import { PRODUCT_STATUSES } from '../../catalog/statuses.js';
import { LISTING_PAGING, Paging } from '../../catalog/paging.js';

// Item fields are documented here but checked per item by the service, so that one bad item fails
// alone instead of rejecting the batch (CONTRACT §6). Hence Unknown() with a description.
const field = (description: string) => Type.Optional(Type.Unknown({ description }));

const documentedFields = {
  product_code: field('string (1-128 characters) or JSON number (stored as its decimal text); upsert key'),
  parent_code: field("string: the parent product's code (variants point at their parent)"),
  'Product Name': field('string: title'),
  Department: field('string, e.g. Men, Women, Boys, Girls, Unisex'),
  Category: field('string, e.g. Shirts, Dresses'),
  'Selling Price': field('string (or number): non-negative decimal with "." and at most 4 decimals'),
  Currency: field('string: currency code'),
  'Image URL 1': field('string: image URL (also Image URL 2 … Image URL 6)'),
  Status: field(
    `string, one of ${PRODUCT_STATUSES.filter((s) => s !== 'problem').join(', ')} ("problem" is set by the quality checks only)`,
  ),
  Colour: field('string (well-known attribute)'),
  Brand: field('string (well-known attribute)'),
  Season: field('string (well-known attribute)'),
  Usage: field('string: occasion, e.g. Casual, Formal, Sports, Ethnic (well-known attribute)'),
  'Sub Category': field('string (well-known attribute)'),
  if_updated_at: field(
    "precondition, never stored: the product's `updated_at` as the client read it (the write applies only if the product is unchanged since), or null (only if the product does not exist yet); otherwise the item fails with reason `conflict`",
  ),
};

export const ProductItemSchema = component(
  'ProductInput',
  Type.Object(documentedFields, {
    additionalProperties: true,
    description:
      "A product. Field names pass through the store's mapping profile; fields beyond these are kept as attributes. `null` removes a field.",
  }),
);

export const ProductBatchBody = Type.Array(ProductItemSchema, {
  minItems: 1,
  description: `1 to 100 products (more: 413). Upsert by product_code; the same code twice: the last occurrence wins. Quality reasons: ${QUALITY_REASONS.join(', ')}.`,
});

const ItemFailureSchema = component(
  'ProductFailure',
  Type.Object({
    index: Type.Integer({ description: 'position of the item in the body' }),
    product_code: Type.String(),
    reason: Type.String({
      description:
        'Missing SKU, invalid_product_code, invalid_status, invalid_field, missing_required_field, quality_check_failed, not_found, conflict (if_updated_at)',
    }),
    details: Type.String(),
  }),
);

const WarningsSchema = Type.Optional(
  Type.Array(
    component('ProductWarning', Type.Object({ product_code: Type.String(), reasons: Type.Array(Type.String()) })),
    {
      description: 'stored products that fail quality checks (status problem, or kept in draft/inactive/under review)',
    },
  ),
);

export const InsertDataResponseSchema = component(
  'InsertDataResponse',
  Type.Object({
    inserted: Type.Integer(),
    updated: Type.Integer(),
    failed: Type.Integer(),
    error_info: Type.Array(ItemFailureSchema),
    warnings: WarningsSchema,
  }),
);

export const UpdateDataResponseSchema = component(
  'UpdateDataResponse',
  Type.Object({
    updated: Type.Integer(),
    failed: Type.Integer(),
    error_info: Type.Array(ItemFailureSchema),
    warnings: WarningsSchema,
  }),
);

export const DeleteProductsQuery = Type.Object({
  store_uuid: Type.String(),
  sku_codes: Type.Array(Type.String(), { description: 'product codes, comma-separated or the parameter repeated' }),
});

export const DeleteProductsResponseSchema = component(
  'DeleteProductsResponse',
  Type.Object({
    deleted: Type.Integer(),
    not_found: Type.Array(Type.String()),
  }),
);

const StatusFilter = Type.Union(
  PRODUCT_STATUSES.map((s) => Type.Literal(s)),
  { description: 'one product status' },
);

export const StatusListingQuery = Type.Object({
  store_uuid: Type.String(),
  ...Paging(LISTING_PAGING),
  status: Type.Optional(StatusFilter),
  after: Type.Optional(
    Type.String({
      minLength: 1,
      maxLength: MAX_PRODUCT_CODE_LENGTH,
      description:
        "keyset paging (extension): only products whose product_code sorts after this one (the previous page's `next_after`); as fast at the millionth product as at the first, where a deep `offset` reads every row before it",
    }),
  ),
});

export const StatusListingSchema = Type.Object({
  store_uuid: Type.String(),
  total: Type.Integer({ description: 'products matching the filter' }),
  data: Type.Array(
    component(
      'ProductStatusEntry',
      Type.Record(
        Type.String(),
        Type.Object({ Category: Type.String(), product_code: Type.String(), status: Type.String() }),
        { description: 'one product, keyed by its product_code' },
      ),
    ),
    {
      description: 'one object per product, keyed by product_code, ordered by product_code',
    },
  ),
  next_after: Type.Union([Type.String(), Type.Null()], {
    description: 'pass as `after` for the next page (keyset paging); null on the last page',
  }),
});

export const FailuresSchema = Type.Array(
  component(
    'FailureCount',
    Type.Object({
      _id: Type.String({ description: 'failure reason' }),
      count: Type.Integer(),
      fixable_by_suggestion: Type.Optional(
        Type.Integer({
          description:
            "Missing category: how many of these products have a photo suggestion for their type at the tagger's default threshold (GET /v1/products/suggestions; extension, present when above 0)",
        }),
      ),
    }),
  ),
);

export const ListProductsQuery = Type.Object({
  store_uuid: Type.String(),
  product_code: Type.Optional(
    Type.Array(Type.String(), { description: 'only these codes (comma-separated or repeated)' }),
  ),
  status: Type.Optional(StatusFilter),
  reason: Type.Optional(
    Type.String({
      minLength: 1,
      maxLength: 200,
      description: 'only products failing this quality check now (a reason of GET /v1/products/failures)',
    }),
  ),
  q: Type.Optional(
    Type.String({
      minLength: 1,
      maxLength: 200,
      description: 'only products whose product_code starts with, or whose Product Name contains, this text (any case)',
    }),
  ),
  filters: Type.Optional(
    Type.String({
      maxLength: MAX_FILTERS_LENGTH,
      description: `only products whose attributes pass these conditions, any status. ${FILTERS_PARAM_DESCRIPTION}`,
    }),
  ),
  facets: Type.Optional(
    Type.Array(Type.String({ minLength: 1, maxLength: 200 }), {
      description: `attribute names (comma-separated or repeated, at most ${MAX_FACETS}) to count values of over every product the other parameters select; disjunctive: a facet ignores its own filter; the answer then holds \`facets\``,
    }),
  ),
  facet_limit: Type.Optional(
    Type.Integer({
      minimum: 1,
      maximum: MAX_FACET_LIMIT,
      default: DEFAULT_FACET_LIMIT,
      description: 'values per facet',
    }),
  ),
  total_precision: Type.Optional(
    Type.Union([Type.Literal('exact'), Type.Literal('at_least')], {
      description:
        'at_least: with `filters` (and no `facets`, `reason`, `q` or `product_code`), while a large store is still indexing its attributes after a restart (seconds at 1M products), the page may be found among the first products and `total` is then the matches found so far, a lower bound; the answer says which in `total_precision`. exact (the default): `total` always counts every match',
    }),
  ),
  ...Paging(LISTING_PAGING),
});

export const ProductListSchema = Type.Object({
  store_uuid: Type.String(),
  total: Type.Integer(),
  total_precision: Type.Optional(
    Type.Union([Type.Literal('exact'), Type.Literal('at_least')], {
      description: 'when `total_precision` was asked: whether `total` counts every match or only those found so far',
    }),
  ),
  products: Type.Array(
    component(
      'Product',
      Type.Object(
        {
          product_code: Type.String(),
          status: Type.String({ description: 'new, active, inactive, draft, under review or problem' }),
          problems: Type.Array(Type.String(), { description: 'the quality reasons it fails now' }),
          created_at: Type.String(),
          updated_at: Type.String(),
        },
        { additionalProperties: true, description: 'a stored product: every attribute, with its field name as given' },
      ),
    ),
  ),
  facets: Type.Optional(
    Type.Record(Type.String(), Type.Array(Type.Object({ value: Type.String(), count: Type.Integer() })), {
      description:
        'when `facets` was asked: per attribute, [{value, count}] most frequent first (ties by value), at most facet_limit; values grouped case-insensitively, counted once per product',
    }),
  ),
});

export const ExportQuery = Type.Object({
  store_uuid: Type.String(),
  format: Type.Union([Type.Literal('ndjson'), Type.Literal('csv')], {
    default: 'ndjson',
    description: 'ndjson (every JSON value as stored) or csv (one column per attribute; text)',
  }),
  status: Type.Optional(StatusFilter),
});

export const MappingProfileSchema = component(
  'MappingProfile',
  Type.Object({
    fields: Type.Record(Type.String(), Type.String(), {
      description: 'incoming field name -> canonical field name; unnamed fields are kept as they are',
    }),
    required: Type.Array(Type.String(), {
      description: 'canonical fields every item must carry (else the item fails with missing_required_field)',
    }),
  }),
);
