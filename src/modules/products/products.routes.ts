import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { ok } from '../../http/envelope.js';
import { Envelope, splitList, standardErrors, StoreUuidQuery } from '../../http/schemas.js';
import type { ProductsService } from './products.service.js';
import type { ProductQueries } from './product-queries.js';
import {
  DeleteProductsQuery,
  DeleteProductsResponseSchema,
  FailuresSchema,
  InsertDataResponseSchema,
  ListProductsQuery,
  ProductBatchBody,
  ProductListSchema,
  StatusListingQuery,
  StatusListingSchema,
  UpdateDataResponseSchema,
} from './products.schemas.js';

const tags = ['products'];
const config = { storeScoped: true } as const;

export const productsRoutes: FastifyPluginAsyncTypebox<{ products: ProductsService; queries: ProductQueries }> = async (
  app,
  { products, queries },
) => {
  app.post(
    '/products',
    {
      config,
      schema: {
        tags,
        summary: 'Create or update products (upsert by product_code)',
        querystring: StoreUuidQuery,
        body: ProductBatchBody,
        response: { 200: Envelope(InsertDataResponseSchema), ...standardErrors(413) },
      },
    },
    async (request) =>
      ok(request, await products.upsertProducts(request.store, request.body as Record<string, unknown>[])),
  );

  app.put(
    '/products',
    {
      config,
      schema: {
        tags,
        summary: 'Update products partially (only the given fields change)',
        querystring: StoreUuidQuery,
        body: ProductBatchBody,
        response: { 200: Envelope(UpdateDataResponseSchema), ...standardErrors(413) },
      },
    },
    async (request) =>
      ok(request, await products.updateProducts(request.store, request.body as Record<string, unknown>[])),
  );

  app.delete(
    '/products',
    {
      config,
      schema: {
        tags,
        summary: 'Delete products by code. Variants of a deleted parent are kept (they are products of their own).',
        querystring: DeleteProductsQuery,
        response: { 200: Envelope(DeleteProductsResponseSchema), ...standardErrors() },
      },
    },
    async (request) => ok(request, await products.deleteProducts(request.store, splitList(request.query.sku_codes))),
  );

  app.get(
    '/products/status',
    {
      config,
      schema: {
        tags,
        summary: 'List products by status (ordered by product_code)',
        querystring: StatusListingQuery,
        response: { 200: Envelope(StatusListingSchema), ...standardErrors() },
      },
    },
    async (request) => ok(request, await queries.statusListing(request.store, request.query)),
  );

  app.get(
    '/products/failures',
    {
      config,
      schema: {
        tags,
        summary: 'Quality failure reasons with counts, most frequent first',
        querystring: StoreUuidQuery,
        response: { 200: Envelope(FailuresSchema), ...standardErrors() },
      },
    },
    async (request) => ok(request, await queries.failures(request.store)),
  );

  app.get(
    '/products',
    {
      config,
      schema: {
        tags,
        summary: 'List full products with every attribute (extension)',
        querystring: ListProductsQuery,
        response: { 200: Envelope(ProductListSchema), ...standardErrors() },
      },
    },
    async (request) => {
      const { product_code, ...page } = request.query;
      const codes = product_code ? splitList(product_code) : undefined;
      return ok(request, await queries.listProducts(request.store, { ...page, codes }));
    },
  );
};
