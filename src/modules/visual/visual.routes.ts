import fastifyMultipart from '@fastify/multipart';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { ok } from '../../http/envelope.js';
import { FilePart } from '../../http/openapi.js';
import { Envelope, standardErrors } from '../../http/schemas.js';
import { InvalidRequestError, PayloadTooLargeError } from '../../errors.js';
import type { VisualService } from './visual.service.js';
import { SimilarQuery, VisualResults, VisualSearchQuery } from './visual.schemas.js';
import type { GroupVariants } from '../../catalog/variants.js';

/** `true` is the historical value: one result per family (`parent`). */
const groupVariantsOf = (value: string): GroupVariants => (value === 'true' ? 'parent' : (value as GroupVariants));
import { formatMegabytes, formatMegapixels, MAX_IMAGE_BYTES, MAX_IMAGE_PIXELS } from '../../catalog/limits.js';

/** CONTRACT §4/§8: an uploaded image may be at most MAX_IMAGE_BYTES. */
export const MAX_UPLOAD_BYTES = MAX_IMAGE_BYTES;
const UPLOAD_LIMITS = `at most ${formatMegabytes(MAX_IMAGE_BYTES)} and ${formatMegapixels(MAX_IMAGE_PIXELS)}`;
/**
 * How many of the store's referenced images the answer could not consider: queued, failed, or being
 * re-embedded after a model or head change (results then come from the images already re-embedded).
 */
export const UNINDEXED_HEADER = 'x-vitrine-unindexed-images';

export const visualRoutes: FastifyPluginAsyncTypebox<{ visual: VisualService }> = async (app, { visual }) => {
  await app.register(fastifyMultipart, { limits: { fileSize: MAX_UPLOAD_BYTES, files: 1, fields: 10, parts: 20 } });

  app.post(
    '/visual-search',
    {
      config: {
        storeScoped: true,
        shopper: true,
        documentedBody: {
          'multipart/form-data': Type.Object({
            image: FilePart(`the photo: JPEG, PNG, WebP, GIF or AVIF, ${UPLOAD_LIMITS}`),
          }),
        },
      },
      schema: {
        operationId: 'searchByPhoto',
        tags: ['search'],
        summary: 'Search by photo: the visible products that look most like the uploaded image',
        description: `multipart/form-data with a file field \`image\` (JPEG, PNG, WebP, GIF or AVIF; ${UPLOAD_LIMITS}, else 413; not an image or undecodable: 400). One result per product family (its best matching image; see group_variants), best first. Header X-Vitrine-Unindexed-Images: referenced images not searchable yet (pending, failed, or being re-embedded after a model change).`,
        querystring: VisualSearchQuery,
        response: { 200: Envelope(VisualResults), ...standardErrors(413) },
      },
    },
    async (request, reply) => {
      if (!request.isMultipart())
        throw new InvalidRequestError("send multipart/form-data with the photo in field 'image'", 'image');
      let image: Buffer | undefined;
      for await (const part of request.parts()) {
        if (part.type !== 'file') continue;
        if (part.fieldname !== 'image') {
          await part.toBuffer().catch(() => undefined);
          continue;
        }
        try {
          image = await part.toBuffer();
        } catch (error) {
          if ((error as { code?: string }).code === 'FST_REQ_FILE_TOO_LARGE')
            throw new PayloadTooLargeError(`the image is larger than ${MAX_UPLOAD_BYTES / 1024 / 1024} MB`, 'image');
          throw error;
        }
      }
      if (!image) throw new InvalidRequestError("multipart field 'image' is required", 'image');
      const { filters, offset, limit, group_variants: groupVariants } = request.query;
      const result = await visual.search(request.store, image, filters, {
        offset,
        limit,
        groupVariants: groupVariantsOf(groupVariants),
      });
      reply.header(UNINDEXED_HEADER, String(result.unindexed));
      return ok(request, result.items);
    },
  );

  app.get(
    '/similar',
    {
      config: { storeScoped: true, shopper: true },
      schema: {
        operationId: 'listSimilarProducts',
        tags: ['search'],
        summary: 'Visually similar products (extension)',
        description:
          "Products whose images look most like the source product's: the query is the mean of the stored vectors of all its indexed images (nothing is decoded); never the source itself nor, with group_variants, its family. Unknown or not visible product: 404; no indexed image yet: an empty list.",
        querystring: SimilarQuery,
        response: { 200: Envelope(VisualResults), ...standardErrors() },
      },
    },
    async (request, reply) => {
      const { product_code, offset, limit, group_variants: groupVariants } = request.query;
      const result = await visual.similar(request.store, product_code, {
        offset,
        limit,
        groupVariants: groupVariantsOf(groupVariants),
      });
      reply.header(UNINDEXED_HEADER, String(result.unindexed));
      return ok(request, result.items);
    },
  );
};
