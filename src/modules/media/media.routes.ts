import fastifyMultipart from '@fastify/multipart';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { ok } from '../../http/envelope.js';
import { FilePart } from '../../http/openapi.js';
import { DetailError, Envelope, EnvelopeError, standardErrors } from '../../http/schemas.js';
import { InvalidRequestError, PayloadTooLargeError } from '../../errors.js';
import { ACCEPTED_MEDIA, MAX_MEDIA_BYTES, MEDIA_LIMITS, MEDIA_TYPES } from './media-types.js';
import { mediaBaseUrl, type IncomingFile, type MediaService } from './media.service.js';
import { MediaParams, ThumbnailQuery, UploadQuery, UploadResultSchema } from './media.schemas.js';
import { THUMBNAIL_SIZES, type Thumbnails } from './thumbnails.js';
import { formatMegapixels, MAX_IMAGE_PIXELS } from '../../catalog/limits.js';
import { MAX_UPLOAD_FILES } from '../../catalog/limits.js';

const MB = 1024 * 1024;
const LIMITS = `images ${MEDIA_LIMITS.image / MB} MB (and ${formatMegapixels(MAX_IMAGE_PIXELS)}), MP4 ${MEDIA_LIMITS.video / MB} MB, PDF ${MEDIA_LIMITS.pdf / MB} MB, GLB ${MEDIA_LIMITS['3D'] / MB} MB`;

/** POST /v1/media: upload photos and other media to a store; GET /v1/thumbnail: its images, small. */
export const mediaRoutes: FastifyPluginAsyncTypebox<{
  media: MediaService;
  thumbnails: Thumbnails;
  publicUrl?: string;
}> = async (app, { media, thumbnails, publicUrl }) => {
  await app.register(fastifyMultipart, {
    limits: { fileSize: MAX_MEDIA_BYTES, files: MAX_UPLOAD_FILES, fields: 20, parts: MAX_UPLOAD_FILES + 20 },
  });

  app.get(
    '/thumbnail',
    {
      config: { storeScoped: true },
      schema: {
        operationId: 'getThumbnail',
        tags: ['media'],
        summary: "A small WebP of one of the store's product or asset images, made and kept by Vitrine",
        description: `The image at \`url\` (a product's \`Image URL n\` or an asset link of this store; any other URL is 404), resized with sharp inside a square of \`size\` pixels (rounded up to ${THUMBNAIL_SIZES.join(', ')}; never enlarged) and kept, so a page shows catalog images without loading them from other hosts (the console's Content-Security-Policy allows only its own images). 502 when the image's host cannot be reached or refuses; 422 when the bytes are no image.`,
        querystring: ThumbnailQuery,
        response: {
          200: {
            description: 'the thumbnail',
            content: { 'image/webp': { schema: Type.String({ format: 'binary' }) } },
          },
          304: Type.Null({ description: 'not modified: If-None-Match named the current ETag' }),
          ...standardErrors(),
        },
      },
    },
    async (request, reply) => {
      const made = await thumbnails.of(request.store.id, request.query.url, request.query.size ?? 96);
      reply
        .header('cache-control', 'private, max-age=86400')
        .header('etag', made.etag)
        .header('x-content-type-options', 'nosniff');
      if (request.headers['if-none-match'] === made.etag) return reply.code(304).send(null);
      return reply.type('image/webp').send(made.bytes as unknown as string);
    },
  );

  app.post(
    '/media',
    {
      config: {
        storeScoped: true,
        documentedBody: {
          'multipart/form-data': Type.Object({
            file: Type.Array(FilePart('one file; repeat the part (any field name) for several'), { minItems: 1 }),
          }),
        },
      },
      schema: {
        operationId: 'uploadMedia',
        tags: ['media'],
        summary: 'Upload photos and other media (one or many files)',
        description: `multipart/form-data with one or more files (any field name). Accepted: ${ACCEPTED_MEDIA}, told from the content, not the name; limits: ${LIMITS}. Each file is stored once by its SHA-256 and answered with the URL Vitrine serves it at (\`/media/<sha256>.<ext>\`, public, cached for a year), to use as a product's \`Image URL n\` or in asset links; those images are indexed for search by photo without a network fetch. Files are stored or failed one by one (\`error_info\`); when no file could be stored the answer is the first failure's error (413 too large, else 400).`,
        querystring: UploadQuery,
        response: { 200: Envelope(UploadResultSchema), ...standardErrors(413) },
      },
    },
    async (request) => {
      if (!request.isMultipart())
        throw new InvalidRequestError('send multipart/form-data with one or more files', 'file');
      async function* files(): AsyncGenerator<IncomingFile> {
        for await (const part of request.parts()) {
          if (part.type !== 'file') continue;
          yield { fileName: part.filename, stream: part.file, truncated: () => part.file.truncated };
        }
      }
      const result = await media.upload(request.store, files(), mediaBaseUrl(publicUrl, request));
      if (result.uploaded === 0) {
        const first = result.error_info[0];
        if (!first) throw new InvalidRequestError('send multipart/form-data with one or more files', 'file');
        const message = `file ${JSON.stringify(first.file_name)}: ${first.details} (${first.reason})`;
        if (first.reason === 'too_large') throw new PayloadTooLargeError(message, 'file');
        throw new InvalidRequestError(message, 'file');
      }
      return ok(request, result);
    },
  );
};

/** The bytes, under the content type each kind of upload is stored and served as. */
const MediaBytes = (description: string) => ({
  description,
  content: Object.fromEntries(MEDIA_TYPES.map((type) => [type.mime, { schema: Type.String({ format: 'binary' }) }])),
});

/** GET /media/{media_key}: the bytes of an upload, public (storefronts load them), immutable. */
export const mediaServingRoutes: FastifyPluginAsyncTypebox<{ media: MediaService }> = async (app, { media }) => {
  app.get(
    '/media/:media_key',
    {
      schema: {
        operationId: 'getMedia',
        tags: ['media'],
        summary: 'An uploaded file (public; Range requests; cached for a year)',
        params: MediaParams,
        security: [],
        response: {
          200: MediaBytes('the file, with the content type it was stored as'),
          206: MediaBytes('the requested byte range (single ranges only)'),
          304: Type.Null({ description: 'not modified: If-None-Match named the current ETag' }),
          404: { ...EnvelopeError, description: 'no such file' },
          416: { ...EnvelopeError, description: 'the range starts past the end (Content-Range: bytes */size)' },
          // Every request is refused a NUL character in a path or query value, this public one too.
          422: { ...DetailError, description: 'a path or query value holds a NUL character' },
          429: standardErrors()[429],
        },
      },
    },
    async (request, reply) => {
      const opened = await media.open(request.params.media_key, request.headers.range);
      if ('unsatisfiable' in opened)
        return reply
          .code(416)
          .header('content-range', `bytes */${opened.unsatisfiable}`)
          .send({ status: { code: -1, message: 'range not satisfiable', request_id: request.id } });
      reply
        .header('content-type', opened.contentType)
        .header('cache-control', 'public, max-age=31536000, immutable')
        .header('etag', opened.etag)
        .header('accept-ranges', 'bytes')
        .header('x-content-type-options', 'nosniff')
        .header('content-security-policy', "default-src 'none'; sandbox");
      if (request.headers['if-none-match'] === opened.etag) {
        opened.stream.destroy();
        return reply.code(304).send(null);
      }
      if (opened.range) {
        const { start, end } = opened.range;
        reply
          .code(206)
          .header('content-range', `bytes ${start}-${end}/${opened.size}`)
          .header('content-length', end - start + 1);
      } else reply.header('content-length', opened.size);
      return reply.send(opened.stream as unknown as string);
    },
  );
};
