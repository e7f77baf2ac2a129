import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { component } from '../../http/components.js';
import { ok } from '../../http/envelope.js';
import { Envelope, standardErrors } from '../../http/schemas.js';
import type { ComplementsService } from './complements.service.js';
import { ProductSummaryFields } from '../../catalog/product-summary.js';
import { PageLimit } from '../../catalog/paging.js';
import { MAX_CATEGORIES } from '../../catalog/limits.js';

export const ComplementaryQuery = Type.Object({
  store_uuid: Type.String(),
  product_code: Type.String({
    minLength: 1,
    description: 'the source product (any status; only new/active products are recommended)',
  }),
  limit: PageLimit(50, 10, 'products per category'),
});

export const Complementary = Type.Object({
  categories: Type.Array(
    component(
      'ComplementaryCategory',
      Type.Object({
        title: Type.String({
          description: "the complementary category group, upper case (e.g. BOTTOMWEAR); never the source product's own",
        }),
        products: Type.Array(
          component(
            'ComplementaryProduct',
            Type.Object({
              ...ProductSummaryFields,
              score: Type.Number({
                description: 'in (0, 1]: 0.3 usage + 0.3 colour + 0.25 price band + 0.15 season; pinned complements 1',
              }),
            }),
          ),
        ),
      }),
    ),
    { maxItems: MAX_CATEGORIES },
  ),
});

export const complementsRoutes: FastifyPluginAsyncTypebox<{ complements: ComplementsService }> = async (
  app,
  { complements },
) => {
  app.get(
    '/complementary',
    {
      config: { storeScoped: true, shopper: true },
      schema: {
        operationId: 'getComplementaryProducts',
        tags: ['complements'],
        summary: 'Complete the look: complementary products grouped by category',
        description: `Categories come from the store's taxonomy (PUT /admin/v1/stores/{store_uuid}/complements; a fashion taxonomy by default), at most ${MAX_CATEGORIES}, pinned complements first. Within a category: same department or Unisex only, never formal/party/ethnic with sports/home, then products with images first, then by the documented score, then product_code.`,
        querystring: ComplementaryQuery,
        response: { 200: Envelope(Complementary), ...standardErrors() },
      },
    },
    async (request) =>
      ok(request, await complements.complementary(request.store, request.query.product_code, request.query.limit)),
  );
};
