import { Type } from '@sinclair/typebox';
import { component } from '../../http/components.js';
import { LISTING_PAGING, Paging } from '../../catalog/paging.js';
import { MAX_REVIEW_ITEMS } from '../../catalog/limits.js';

const Field = Type.Union([Type.Literal('type'), Type.Literal('colour'), Type.Literal('audience')], {
  description: 'type (fills Category), colour (Colour) or audience (Department)',
});

export const SuggestionsQuery = Type.Object({
  store_uuid: Type.String(),
  field: Type.Optional(Field),
  min_confidence: Type.Number({
    minimum: 0,
    maximum: 1,
    default: 0,
    description:
      'only suggestions at least this confident (above 0, products whose photo could not be read are left out)',
  }),
  status: Type.Union([Type.Literal('open'), Type.Literal('reviewed')], {
    default: 'open',
    description:
      'open: not yet reviewed for the product’s current photo; reviewed: accepted, corrected, rejected or applied',
  }),
  ...Paging(LISTING_PAGING),
});

export const SuggestionSchema = component(
  'TagSuggestion',
  Type.Object({
    product_code: Type.String(),
    field: Field,
    value: Type.Union([Type.String(), Type.Null()], {
      description: "the label offered, in the store's own words; null when the photo could not be read (see reason)",
    }),
    confidence: Type.Number({ description: 'calibrated: a 0.9 is right about nine times in ten on held-out photos' }),
    current_value: Type.Union([Type.String(), Type.Null()]),
    new_label: Type.Boolean({ description: 'the store has no label for this yet: the built-in word is offered' }),
    image_url: Type.Union([Type.String(), Type.Null()]),
    predicted: Type.Union([Type.String(), Type.Null()], {
      description: 'the class predicted: a garment concept, colour family or audience (for grouping)',
    }),
    reason: Type.Optional(Type.String({ description: 'why the photo gave no suggestion' })),
    decision: Type.Optional(Type.String({ description: 'reviewed ones: accepted, corrected, rejected or auto' })),
    source: Type.Optional(
      Type.Union([Type.Literal('tagger'), Type.Literal('store')], {
        description:
          "tagger: the shipped model; store: the store's own labelled photos, for a field they read better (its own labels, for products lacking the field)",
      }),
    ),
  }),
);

export const ReviewBody = Type.Array(
  Type.Object(
    {
      product_code: Type.String({ minLength: 1 }),
      field: Field,
      value: Type.Optional(Type.String({ minLength: 1, description: 'a corrected value (accept only)' })),
    },
    { additionalProperties: false },
  ),
  { maxItems: MAX_REVIEW_ITEMS },
);

const ReviewFailure = Type.Object({ product_code: Type.String(), field: Type.String(), reason: Type.String() });

export const AcceptedSchema = Type.Object({
  accepted: Type.Integer(),
  failed: Type.Integer(),
  error_info: Type.Array(ReviewFailure),
});

export const RejectedSchema = Type.Object({
  rejected: Type.Integer(),
  failed: Type.Integer(),
  error_info: Type.Array(ReviewFailure),
});

const Threshold = Type.Union([
  Type.Number({ minimum: 0, maximum: 1, description: 'a confidence in (0, 1]' }),
  Type.Null(),
]);

export const TaggingSettingsBody = Type.Object(
  {
    auto_apply: Type.Object(
      { type: Type.Optional(Threshold), colour: Type.Optional(Threshold), audience: Type.Optional(Threshold) },
      {
        additionalProperties: false,
        description:
          'per field, the confidence from which a suggestion fills a product that lacks the field; null: off',
      },
    ),
  },
  { additionalProperties: false },
);

const Accuracy = Type.Object({
  accepted: Type.Integer(),
  corrected: Type.Integer(),
  rejected: Type.Integer(),
  auto: Type.Integer(),
  reviewed: Type.Integer(),
  precision: Type.Union([Type.Number(), Type.Null()], { description: 'accepted as offered / reviewed' }),
});

export const TaggingSettingsSchema = Type.Object({
  store_uuid: Type.String(),
  auto_apply: Type.Object({ type: Threshold, colour: Threshold, audience: Threshold }),
  default_thresholds: Type.Object({ type: Threshold, colour: Threshold, audience: Threshold }),
  tagger: Type.Union([Type.String(), Type.Null()], { description: 'the tagger model identity' }),
  accuracy: Type.Object({ type: Accuracy, colour: Accuracy, audience: Accuracy }),
});
