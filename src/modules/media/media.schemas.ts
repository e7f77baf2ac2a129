import { Type } from '@sinclair/typebox';
import { component } from '../../http/components.js';
import { StoreUuidQuery } from '../../http/schemas.js';

export const UploadQuery = StoreUuidQuery;

export const ThumbnailQuery = Type.Object({
  store_uuid: Type.String({ description: 'the store, from `vitrine store create`' }),
  url: Type.String({ minLength: 1, maxLength: 2048, description: "one of the store's product or asset image URLs" }),
  size: Type.Optional(
    Type.Integer({
      minimum: 1,
      maximum: 320,
      default: 96,
      description: 'the square box in pixels (rounded up to 48, 96, 160 or 320)',
    }),
  ),
});

export const StoredMediaSchema = component(
  'MediaFile',
  Type.Object({
    index: Type.Integer({ description: 'position of the file in the request' }),
    file_name: Type.String({ description: "the client's file name (last path segment), metadata only" }),
    url: Type.String({ description: 'where Vitrine serves the file; usable as `Image URL n` and in asset links' }),
    media_key: Type.String({ description: '`<sha256>.<ext>`' }),
    sha256: Type.String(),
    content_type: Type.String({ description: 'told from the bytes, not the name' }),
    media_type: Type.String({ description: 'image, video, pdf or 3D (the asset_type to link it as)' }),
    bytes: Type.Integer(),
    created: Type.Boolean({ description: 'false when the store already had these bytes (same object, same URL)' }),
  }),
);

export const UploadResultSchema = component(
  'MediaUploadResult',
  Type.Object({
    uploaded: Type.Integer(),
    failed: Type.Integer(),
    files: Type.Array(StoredMediaSchema),
    error_info: Type.Array(
      Type.Object({
        index: Type.Integer(),
        file_name: Type.String(),
        reason: Type.String({
          description: 'empty_file, unsupported_type, too_large, undecodable_image or invalid_file_name',
        }),
        details: Type.String(),
      }),
    ),
  }),
);

export const MediaParams = Type.Object({ media_key: Type.String({ description: '`<sha256>.<ext>`' }) });
