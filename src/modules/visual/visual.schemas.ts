import { Type } from '@sinclair/typebox';
import { component } from '../../http/components.js';
import { Paging, RANKED_PAGING } from '../../catalog/paging.js';
import { MAX_FILTERS_LENGTH } from '../../catalog/limits.js';
import { FILTERS_PARAM_DESCRIPTION } from '../../catalog/filters.js';

const GroupVariants = Type.Union(
  ['true', 'parent', 'colour', 'false'].map((value) => Type.Literal(value)),
  {
    default: 'true',
    description:
      'true (default) or parent: at most one result per product family (products sharing a parent_code, and the product whose code that is), its best match; colour: one per family and Colour; false: every matching variant is its own result',
  },
);

export const VisualSearchQuery = Type.Object({
  store_uuid: Type.String(),
  filters: Type.Optional(Type.String({ maxLength: MAX_FILTERS_LENGTH, description: FILTERS_PARAM_DESCRIPTION })),
  ...Paging(RANKED_PAGING),
  group_variants: GroupVariants,
});

export const SimilarQuery = Type.Object({
  store_uuid: Type.String(),
  product_code: Type.String({
    minLength: 1,
    description: 'the source product (new or active); never returned itself, nor (with group_variants) its family',
  }),
  ...Paging(RANKED_PAGING),
  group_variants: GroupVariants,
});

export const VisualResults = Type.Array(
  component(
    'VisualHit',
    Type.Object({
      product_code: Type.String({
        description:
          "a new or active product; for an image asset link, the product whose code is its parent_code, else that parent's first visible variant",
      }),
      score: Type.Number({
        description:
          "in (0, 1]: similarity of the image embeddings (MobileNetV2 features through the fashion head, which weighs shape and the product's foreground colours; one byte per dimension), rounded to 6 decimals; equal scores are ordered by product_code",
      }),
      image_url: Type.String({ description: "the product's image that matched best (one result per product)" }),
    }),
  ),
);

export const ImageStatus = component(
  'ImageStatus',
  Type.Object({
    store_uuid: Type.String(),
    images: Type.Integer({
      description: 'distinct image URLs referenced by products (Image URL n) and image asset links',
    }),
    pending: Type.Integer({ description: 'queued, being fetched, or waiting for a retry' }),
    indexed: Type.Integer(),
    failed: Type.Integer({ description: 'gave up: a permanent error, or the last retry failed' }),
    retrying: Type.Integer({ description: 'pending after a failed attempt' }),
    failures: Type.Array(
      Type.Object({
        url: Type.String(),
        state: Type.String(),
        error: Type.Union([Type.String(), Type.Null()]),
        attempts: Type.Integer(),
        updated_at: Type.String(),
      }),
      { description: 'most recent failures first' },
    ),
  }),
);
