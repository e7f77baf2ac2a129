import { Type } from '@sinclair/typebox';
import { component } from '../../http/components.js';
import { ASSET_GROUP_PAGING, Paging } from '../../catalog/paging.js';
import { formatLimit, MAX_URL_LENGTH } from '../../catalog/limits.js';

const item = (properties: Parameters<typeof Type.Object>[0], description: string) =>
  Type.Object(properties, { additionalProperties: true, description });
const doc = (description: string) => Type.Optional(Type.Unknown({ description }));

export const CreateAssetsQuery = Type.Object({
  store_uuid: Type.String(),
  channel: Type.Optional(
    Type.String({ description: "applies to every item without its own channel; default: the store's default channel" }),
  ),
});

export const CreateAssetsBody = Type.Array(
  component(
    'AssetLinksInput',
    item(
      {
        parent_code: doc('string: a product_code, or the parent_code of stored products'),
        asset_type: doc(
          'string, one of the configured formats (default list: image, video, pdf, 3D, text); default image',
        ),
        channel: doc('string: overrides the query channel for this item'),
        assets: doc(
          `object: attribute name -> absolute http(s) URL (at most ${formatLimit(MAX_URL_LENGTH)} characters). "Image URL 3" takes rank 3 (compacted to n+1 when past the end); names without a number follow in the given order`,
        ),
      },
      'links of one parent product',
    ),
  ),
  { minItems: 1, maxItems: 1000 },
);

const FailureSchema = component(
  'AssetFailure',
  Type.Object({
    index: Type.Integer(),
    parent_code: Type.String(),
    reason: Type.String({
      description:
        'invalid_parent_code, unknown_parent_code, unknown_channel, invalid_asset_type, invalid_assets, invalid_url, invalid_name, store_not_found, invalid_asset_id, invalid_request, not_found',
    }),
    details: Type.String(),
    name: Type.Optional(Type.String()),
    asset_id: Type.Optional(Type.String()),
  }),
);

export const CreateAssetsResponse = Type.Object({
  created: Type.Integer(),
  updated: Type.Integer(),
  failed: Type.Integer({ description: 'counts links' }),
  error_info: Type.Array(FailureSchema),
});

export const ListAssetsQuery = Type.Object({
  store_uuid: Type.String(),
  channel: Type.Optional(Type.String({ description: "default: the store's default channel" })),
  asset_format: Type.Optional(Type.String({ description: 'default image' })),
  parent_code: Type.Optional(Type.String()),
  ...Paging(ASSET_GROUP_PAGING, { offset: 'in groups', limit: 'groups per page' }),
});

export const AssetGroupsResponse = Type.Object({
  total_groups: Type.Integer(),
  returned_groups: Type.Integer(),
  assets: Type.Record(
    Type.String(),
    component(
      'AssetGroup',
      Type.Object({
        channel: Type.String(),
        asset_type: Type.String(),
        store_uuid: Type.String(),
        assets: Type.Array(
          Type.Record(Type.String(), Type.Union([Type.String(), Type.Integer()]), {
            description: '{"<name>": url, "asset_id": "…", "rank": n}',
          }),
        ),
      }),
    ),
    { description: 'keyed by parent_code, ordered by parent_code then rank' },
  ),
});

export const UnlinkAssetsBody = Type.Array(
  component(
    'AssetUnlinkInput',
    item(
      {
        store_uuid: doc("string: any store of the caller's workspace"),
        parent_code: doc('string'),
        channel: doc('string (default channel when omitted)'),
        asset_id: doc('string'),
      },
      'one link to remove; the asset stays and is relinked with the same asset_id by a later create of its URL',
    ),
  ),
  { minItems: 1, maxItems: 1000 },
);

export const UnlinkAssetsResponse = Type.Object({
  unlinked: Type.Integer(),
  failed: Type.Integer(),
  error_info: Type.Array(FailureSchema),
});

export const DeleteAssetsBody = Type.Array(
  component(
    'AssetDeleteInput',
    item(
      {
        store_uuid: doc('string'),
        channel: doc('string'),
        parent_code: doc('string: when given, each asset must be linked to it on the channel'),
        asset_id: doc('array of asset id strings'),
      },
      'assets to delete with all their links',
    ),
  ),
  { minItems: 1, maxItems: 1000 },
);

export const DeleteAssetsResponse = Type.Object({
  deleted_count: Type.Integer(),
  failed: Type.Integer(),
  error_info: Type.Array(FailureSchema),
});
