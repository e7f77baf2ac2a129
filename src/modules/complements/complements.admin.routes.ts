import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { ok } from '../../http/envelope.js';
import { Envelope, standardErrors } from '../../http/schemas.js';
import type { ComplementsService } from './complements.service.js';
import { storeSettingRoutes } from '../../http/store-setting-routes.js';

const tags = ['admin'];

/** The operator API of complete the look: the store's taxonomy and pinned complements. */
export const complementsAdminRoutes: FastifyPluginAsyncTypebox<{
  complements: ComplementsService;
}> = async (app, { complements }) => {
  const TaxonomySchema = Type.Object({
    groups: Type.Record(Type.String(), Type.Array(Type.String()), {
      description: 'group label -> categories (product Category values, case-insensitive)',
    }),
    complements: Type.Record(Type.String(), Type.Array(Type.String()), {
      description: 'group label -> complementary group labels, in order of preference',
    }),
  });
  const ProductParams = Type.Object({ store_uuid: Type.String(), product_code: Type.String() });

  storeSettingRoutes(app, {
    path: 'complements',
    tags,
    body: TaxonomySchema,
    response: TaxonomySchema,
    read: {
      operationId: 'adminGetComplementRules',
      summary: "Read a store's complement taxonomy",
      handle: (store) => complements.getTaxonomy(store),
    },
    replace: {
      operationId: 'adminSetComplementRules',
      summary: "Replace a store's complement taxonomy",
      handle: (store, body) => complements.setTaxonomy(store, body),
    },
  });

  app.put(
    '/stores/:store_uuid/complements/:product_code',
    {
      schema: {
        operationId: 'adminSetProductComplements',
        tags,
        summary: 'Pin complements for a product (they come first)',
        params: ProductParams,
        body: Type.Object(
          { product_codes: Type.Array(Type.String(), { maxItems: 100 }) },
          { additionalProperties: false },
        ),
        response: {
          200: Envelope(Type.Object({ product_code: Type.String(), pinned: Type.Array(Type.String()) })),
          ...standardErrors(),
        },
      },
    },
    async (request) =>
      ok(
        request,
        await complements.setPins(request.params.store_uuid, request.params.product_code, request.body.product_codes),
      ),
  );
};
