import { Type } from '@sinclair/typebox';

const How = (values: string[]) => Type.Union(values.map((v) => Type.Literal(v)));
const LabelMap = (description: string) => Type.Record(Type.String(), Type.String(), { description });

export const StoreLanguageBody = Type.Object(
  {
    language: Type.String({
      description:
        'a BCP 47 tag: en, fr, de, es, it, nl, pt, sv or da (a region such as fr-CA is read as its language)',
    }),
  },
  { additionalProperties: false },
);

export const StoreLanguageSchema = Type.Object({
  store_uuid: Type.String(),
  language: Type.String({ description: "the store's catalog language" }),
  index_language: Type.String({
    description: 'the language text search answers in: the previous one until the rebuilt index commits',
  }),
  reindexing: Type.Boolean({ description: 'the text index is being rebuilt in the new language' }),
  supported: Type.Array(Type.String(), { description: 'the languages a store may have' }),
});

export const VocabularyOverridesSchema = Type.Object({
  categories: Type.Optional(
    LabelMap('category label -> complement group of the store taxonomy (e.g. "Sleep Bag": "NIGHTWEAR"), or UNPLACED'),
  ),
  departments: Type.Optional(
    LabelMap('department label -> audience: women, men, girls, boys, kids, baby or unisex (e.g. "Divided": "women")'),
  ),
  colours: Type.Optional(
    LabelMap('colour label -> colour family, optionally after light/medium/dark (e.g. "Mole": "dark brown")'),
  ),
});

export const VocabularyReportSchema = Type.Object({
  store_uuid: Type.String(),
  categories: Type.Array(
    Type.Object({
      label: Type.String(),
      products: Type.Integer({ description: 'stored products with this label (any status)' }),
      concept: Type.Union([Type.String(), Type.Null()], { description: 'the garment concept, e.g. "t-shirt"' }),
      group: Type.Union([Type.String(), Type.Null()], {
        description: 'the complement group; null when unplaced or per product',
      }),
      how: How([
        'override',
        'taxonomy',
        'exact',
        'folded',
        'head word',
        'sub category',
        'titles',
        'per product',
        'unplaced',
      ]),
      groups: Type.Optional(
        Type.Record(Type.String(), Type.Integer(), {
          description: 'generic labels ("per product"): products placed per group from their titles',
        }),
      ),
    }),
  ),
  departments: Type.Array(
    Type.Object({
      label: Type.String(),
      products: Type.Integer(),
      audience: Type.Union([Type.String(), Type.Null()], { description: 'null: an audience of its own' }),
      how: How(['override', 'exact', 'folded', 'unplaced']),
    }),
  ),
  colours: Type.Array(
    Type.Object({
      label: Type.String(),
      products: Type.Integer(),
      family: Type.Union([Type.String(), Type.Null()]),
      lightness: Type.Union([Type.String(), Type.Null()]),
      neutral: Type.Boolean({ description: 'goes with every colour in complete the look' }),
      how: How(['override', 'exact', 'folded', 'unplaced']),
    }),
  ),
  overrides: Type.Object({
    categories: Type.Record(Type.String(), Type.String()),
    departments: Type.Record(Type.String(), Type.String()),
    colours: Type.Record(Type.String(), Type.String()),
  }),
  groups: Type.Array(Type.String(), { description: 'the groups a category override may name' }),
  audiences: Type.Array(Type.String()),
  colour_families: Type.Array(Type.String()),
});
