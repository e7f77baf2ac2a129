import { Type } from '@sinclair/typebox';
import { component } from '../../http/components.js';
import { ProductSummaryFields } from '../../catalog/product-summary.js';
import { LISTING_PAGING, PageLimit, Paging } from '../../catalog/paging.js';

const doc = (description: string) => Type.Optional(Type.Unknown({ description }));

const FILTER_GRAMMAR =
  'filters: object of product attribute -> condition; every condition must hold. A condition is a value ("Category": "Dresses", case-insensitive), a list of values (any of: "Department": ["Women", "Girls"]) or a numeric range with gte/gt/lte/lt ("Selling Price": {"gte": 10, "lte": 50}). Any attribute works (Category, Department, Colour, Brand, Usage, Season, Sub Category, your own). Unknown operators fail the item (invalid_filter). An empty filter selects no product.';

export const CollectionItem = component(
  'CollectionInput',
  Type.Object(
    {
      id: doc('string (1-128 of letters, digits . _ : -); generated when omitted on create; required on update'),
      parentId: doc('string or null: the parent collection in the same store (cycles are refused)'),
      name: doc('string, required on create'),
      description: doc('string'),
      thumbnail: doc('string'),
      url: doc('string'),
      bannerUrl: doc('string'),
      status: doc('active, inactive or hidden (a collection with fewer members than minProducts is listed as hidden)'),
      displayPreference: doc('string, stored as given'),
      autoRefresh: doc(
        'boolean (default true): keep membership current as products change; false freezes it at the last save',
      ),
      minProducts: doc('integer ≥ 0'),
      meta: doc('object {title, description}'),
      sortBy: doc(
        'object {static: {qualityScore, trendScore, personalization} booleans (qualityScore and trendScore order the members after the heroes by their summed signals, each 0..1 within the store; personalization: the affinity of the shopper named by shopper_id on GET /v1/collection/{id}/products, from their own events), dynamic: [{field, order: asc|desc}] (orders the rule members by product attributes; ties after the signals)}',
      ),
      filters: doc(FILTER_GRAMMAR),
      heroProducts: doc(
        'array of product codes, first in this order; codes of products that do not exist (or are not visible) are kept but neither shown nor counted until they are',
      ),
      groups: doc('array of objects, stored as given'),
      static: doc('"true": the members are exactly heroProducts (filters ignored); "false" (default)'),
    },
    { additionalProperties: true, description: 'A collection; totalProducts is computed (ignored on input).' },
  ),
);

export const CollectionBatch = Type.Array(CollectionItem, {
  minItems: 1,
  description: '1 to 100 collections (more: 413)',
});

export const CollectionView = component(
  'Collection',
  Type.Object({
    id: Type.String(),
    parentId: Type.Union([Type.String(), Type.Null()]),
    name: Type.String(),
    description: Type.String(),
    thumbnail: Type.String(),
    status: Type.String(),
    url: Type.String(),
    displayPreference: Type.String(),
    autoRefresh: Type.Boolean(),
    minProducts: Type.Integer(),
    totalProducts: Type.Integer({ description: 'exact: visible members, heroes included' }),
    meta: Type.Object({ title: Type.String(), description: Type.String() }),
    sortBy: Type.Object({
      static: Type.Record(Type.String(), Type.Boolean()),
      dynamic: Type.Array(Type.Object({ field: Type.String(), order: Type.String() })),
    }),
    filters: Type.Record(Type.String(), Type.Unknown()),
    heroProducts: Type.Array(Type.String()),
    groups: Type.Array(Type.Record(Type.String(), Type.Unknown())),
    bannerUrl: Type.String(),
    static: Type.String(),
  }),
);

export const CollectionListQuery = Type.Object({
  store_uuid: Type.String(),
  status: Type.Optional(
    Type.String({ description: 'comma-separated: active, inactive, hidden; without it every status' }),
  ),
  ...Paging(LISTING_PAGING),
});

export const DeleteCollectionsQuery = Type.Object({
  store_uuid: Type.String(),
  ids: Type.Array(Type.String(), { description: 'comma-separated or repeated' }),
});

const Failure = component(
  'CollectionFailure',
  Type.Object({
    index: Type.Integer(),
    id: Type.Union([Type.String(), Type.Null()]),
    reason: Type.String({
      description:
        'invalid_id, duplicate_id, already_exists, not_found, invalid_field, invalid_status, invalid_filter, invalid_sort, parent_not_found, cycle',
    }),
    details: Type.String(),
  }),
);
const Ids = Type.Array(Type.Union([Type.String(), Type.Null()]), {
  description: 'one per body item, in body order; null where the item failed',
});
export const CreatedCollections = Type.Object({
  created: Type.Integer(),
  failed: Type.Integer(),
  ids: Ids,
  error_info: Type.Array(Failure),
});
export const UpdatedCollections = Type.Object({
  updated: Type.Integer(),
  failed: Type.Integer(),
  ids: Ids,
  error_info: Type.Array(Failure),
});
export const DeletedCollections = Type.Object({
  deleted: Type.Integer(),
  failed: Type.Integer(),
  ids: Ids,
  error_info: Type.Array(Failure),
});

interface HierarchyNodeShape {
  collectionId: string;
  collectionName: string;
  collectionUrl: string;
  children: HierarchyNodeShape[];
}
export const HierarchyNode = Type.Recursive(
  (self) =>
    Type.Object({
      collectionId: Type.String(),
      collectionName: Type.String(),
      collectionUrl: Type.String(),
      children: Type.Array(self),
    }),
  { $id: 'CollectionHierarchyNode' },
);
export type HierarchyNodeType = HierarchyNodeShape;
export const Hierarchy = component(
  'CollectionHierarchy',
  Type.Object({
    vendor: Type.String({ description: 'the store name' }),
    association: Type.Array(HierarchyNode, {
      description: 'active collections only; a hidden or inactive collection takes its subtree with it',
    }),
  }),
);

export const CollectionIdParams = Type.Object({ id: Type.String() });
export const MembersQuery = Type.Object({
  store_uuid: Type.String(),
  ...Paging(LISTING_PAGING),
  shopper_id: Type.Optional(
    Type.String({
      minLength: 1,
      maxLength: 200,
      description:
        "the shopper browsing: a collection whose sortBy.static enables personalization orders its members (after the heroes) by this shopper's affinity too; without it, or for a shopper without events, the page is the anonymous one",
    }),
  ),
});
const CollectionMember = component('CollectionMember', Type.Object(ProductSummaryFields));
export const Members = Type.Object({
  total: Type.Integer(),
  products: Type.Array(CollectionMember),
});

export const PreviewQuery = Type.Object({
  store_uuid: Type.String(),
  limit: PageLimit(100, 24),
});
export const PreviewBody = Type.Record(Type.String(), Type.Unknown(), {
  description: 'one collection as it would be created (id and parentId are ignored)',
});
export const Preview = Type.Object({
  status: Type.String({ description: 'the status it would have: an active collection below minProducts is hidden' }),
  totalProducts: Type.Integer(),
  products: Type.Array(CollectionMember, { description: 'the first members: heroes first, then by sortBy.dynamic' }),
});
