import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { ok } from '../../http/envelope.js';
import { Envelope, standardErrors } from '../../http/schemas.js';
import { StoreUuidParams } from '../stores/stores.schemas.js';
import type { ComplementsService } from './complements.service.js';

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

  app.get(
    '/stores/:store_uuid/complements',
    {
      schema: {
        operationId: 'adminGetComplementRules',
        tags,
        summary: "Read a store's complement taxonomy",
        params: StoreUuidParams,
        response: { 200: Envelope(TaxonomySchema), ...standardErrors() },
      },
    },
    async (request) => ok(request, await complements.getTaxonomy(request.params.store_uuid)),
  );

  app.put(
    '/stores/:store_uuid/complements',
    {
      schema: {
        operationId: 'adminSetComplementRules',
        tags,
        summary: "Replace a store's complement taxonomy",
        params: StoreUuidParams,
        body: TaxonomySchema,
        response: { 200: Envelope(TaxonomySchema), ...standardErrors() },
      },
    },
    async (request) => ok(request, await complements.setTaxonomy(request.params.store_uuid, request.body)),
  );

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
