import { Type } from '@sinclair/typebox';
import { component } from '../../http/components.js';

const StoreDetails = Type.Object({
  store_name: Type.String(),
  workspace_id: Type.String(),
  linked_store_id: Type.Union([Type.String(), Type.Null()]),
  store_website: Type.Union([Type.String(), Type.Null()]),
  country: Type.Array(Type.String()),
  channels: Type.Record(Type.String(), Type.Integer(), {
    description: 'channel code -> number of distinct parent_codes with at least one asset link on it',
  }),
  store_taxonomy: Type.String(),
  store_language: Type.String({
    description:
      "the catalog's language (BCP 47 primary tag: en, fr, de, es, it, nl, pt, sv, da): how text search and the catalog vocabulary read it (extension)",
  }),
});
const pendingCount = (description: string) => Type.Integer({ minimum: 0, description });
/** GET /v1/stores: the store's details and its indexes' freshness. */
export const StoreDetailsWithIndexes = component(
  'Store',
  Type.Intersect([
    StoreDetails,
    Type.Object({
      indexes: Type.Object(
        {
          caught_up: Type.Boolean({ description: 'every index has applied every change of the store' }),
          pending: Type.Object({
            search: pendingCount('changes the text index has not applied'),
            vocabulary: pendingCount("the typo vocabulary's (read from the text index)"),
            facets: pendingCount("the listing's (filters, facets, sorting) in the process that answered"),
            complements: pendingCount("complete the look's in the process that answered"),
            collections: pendingCount("rule collections' memberships"),
            photos: pendingCount('changes the photo catalog has not read, plus images waiting to be embedded'),
          }),
        },
        { description: 'how far behind the catalog each index is (extension)' },
      ),
    }),
  ]),
);

export const StoreListItemSchema = component(
  'StoreSummary',
  Type.Intersect([Type.Object({ store_uuid: Type.String(), default_channel: Type.String() }), StoreDetails]),
);

export const TokenStoresSchema = Type.Array(
  component(
    'TokenStore',
    Type.Object({ store_uuid: Type.String(), store_name: Type.String(), default_channel: Type.String() }),
  ),
);

export const CreateStoreBody = Type.Object(
  {
    workspace_name: Type.Optional(
      Type.String({ minLength: 1, description: 'created when no workspace of that name exists' }),
    ),
    workspace_id: Type.Optional(
      Type.String({ minLength: 1, description: 'alternative to workspace_name: an existing workspace' }),
    ),
    name: Type.String({ minLength: 1 }),
    website: Type.Optional(Type.Union([Type.String(), Type.Null()])),
    country: Type.Optional(Type.Array(Type.String())),
    channels: Type.Optional(
      Type.Array(Type.String(), { description: 'the first is the default channel; none: one channel "default"' }),
    ),
    taxonomy: Type.Optional(Type.String({ minLength: 1 })),
    language: Type.Optional(
      Type.String({
        description: `the catalog's language, a BCP 47 tag (en, fr, de, es, it, nl, pt, sv, da; a region such as fr-CA is read as its language); default en. Another: 422 listing the supported ones`,
      }),
    ),
    linked_store_id: Type.Optional(Type.Union([Type.String(), Type.Null()])),
  },
  { additionalProperties: false },
);

export const CreatedStoreSchema = component(
  'CreatedStore',
  Type.Object({
    workspace_id: Type.String(),
    store_uuid: Type.String(),
    api_token: Type.String({ description: 'shown once' }),
  }),
);
export const CreateWorkspaceBody = Type.Object(
  { name: Type.String({ minLength: 1 }) },
  { additionalProperties: false },
);
export const WorkspaceSchema = component(
  'Workspace',
  Type.Object({
    workspace_id: Type.String(),
    name: Type.String(),
    created_at: Type.Optional(Type.String()),
  }),
);
export const CreateTokenBody = Type.Object(
  {
    workspace_id: Type.String({ minLength: 1 }),
    scope: Type.Optional(
      Type.Union([Type.Literal('full'), Type.Literal('search')], {
        description:
          'full (default): a workspace token for every endpoint of every store of the workspace; search: a publishable key (vt_pk_…) for the shopper endpoints (text search, search by photo, similar, complementary, collections, store details) of store_uuids only, safe in browser code',
      }),
    ),
    store_uuids: Type.Optional(
      Type.Array(Type.String({ minLength: 1 }), {
        minItems: 1,
        description: 'the stores of the workspace a publishable key works for (scope search only)',
      }),
    ),
  },
  { additionalProperties: false },
);
export const CreatedTokenSchema = component(
  'CreatedToken',
  Type.Object({
    token_id: Type.String(),
    api_token: Type.String({ description: 'shown once' }),
    scope: Type.Union([Type.Literal('full'), Type.Literal('search')]),
    store_uuids: Type.Union([Type.Array(Type.String()), Type.Null()], {
      description: "a publishable key's stores; null for a workspace token",
    }),
  }),
);
export const TokenSchema = component(
  'Token',
  Type.Object({
    token_id: Type.String(),
    scope: Type.Union([Type.Literal('full'), Type.Literal('search')]),
    store_uuids: Type.Union([Type.Array(Type.String()), Type.Null()], {
      description: "a publishable key's stores; null for a workspace token",
    }),
    created_at: Type.String(),
    revoked_at: Type.Union([Type.String(), Type.Null()], { description: 'null while the token works' }),
  }),
);
export const TokenListQuery = Type.Object({
  workspace_id: Type.String({ minLength: 1, description: 'the workspace whose tokens to list' }),
});
export const AllowedOriginsSchema = component(
  'AllowedOrigins',
  Type.Object(
    {
      allowed_origins: Type.Array(Type.String({ maxLength: 300 }), {
        maxItems: 100,
        description:
          'browser origins (scheme://host[:port], no path) allowed to call /v1 for the store (CORS); [] allows none',
      }),
    },
    { additionalProperties: false },
  ),
);
export const RevokedTokenSchema = Type.Object({ token_id: Type.String(), revoked: Type.Boolean() });
export const TokenIdParams = Type.Object({ token_id: Type.String() });
export const StoreUuidParams = Type.Object({ store_uuid: Type.String() });
