import { Readable } from 'node:stream';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { ok } from '../../http/envelope.js';
import { Envelope, splitList, standardErrors, StoreUuidQuery } from '../../http/schemas.js';
import type { ProductsService } from './products.service.js';
import type { ProductQueries } from './product-queries.js';
import type { ProductExport } from './product-export.js';
import {
  DeleteProductsQuery,
  DeleteProductsResponseSchema,
  ExportQuery,
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

export const productsRoutes: FastifyPluginAsyncTypebox<{
  products: ProductsService;
  queries: ProductQueries;
  exporter: ProductExport;
}> = async (app, { products, queries, exporter }) => {
  app.post(
    '/products',
    {
      config,
      schema: {
        operationId: 'createProducts',
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
        operationId: 'updateProducts',
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
        operationId: 'deleteProducts',
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
        operationId: 'listProductStatuses',
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
        operationId: 'listProductFailures',
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
        operationId: 'listProducts',
        tags,
        summary: 'List full products with every attribute (extension)',
        querystring: ListProductsQuery,
        response: { 200: Envelope(ProductListSchema), ...standardErrors() },
      },
    },
    async (request) => {
      const { product_code, q, facets, facet_limit, total_precision, ...page } = request.query;
      const codes = product_code ? splitList(product_code) : undefined;
      const listed = await queries.listProducts(request.store, {
        ...page,
        codes,
        text: q?.trim() || undefined,
        facets: facets ? splitList(facets) : undefined,
        facetLimit: facet_limit,
        totalPrecision: total_precision,
      });
      // Asked for, the precision is always said: exact unless a page was found before every match was.
      return ok(request, total_precision ? { total_precision: 'exact' as const, ...listed } : listed);
    },
  );

  app.get(
    '/products/export',
    {
      config,
      schema: {
        operationId: 'exportProducts',
        tags,
        summary: 'Export every product of the store, streamed (extension)',
        description:
          'Every product with all its attributes and `Status`, in product_code order, streamed in constant memory: NDJSON (`application/x-ndjson`, one JSON object per line, every value as stored) or CSV (`text/csv`, a header row, one column per attribute, lists and objects as JSON). The file imports back as it is (`vitrine import`, admin imports): an unchanged catalog reports every row `unchanged`; `Status: problem` reads as "let the quality checks decide". `status` keeps one status.',
        querystring: ExportQuery,
        response: {
          200: {
            description: 'the products, streamed',
            content: {
              'application/x-ndjson': { schema: Type.String({ description: 'one JSON object per line' }) },
              'text/csv': { schema: Type.String({ description: 'a header row, then one row per product' }) },
            },
          },
          ...standardErrors(),
        },
      },
    },
    async (request, reply) => {
      const { format, status } = request.query;
      const stream = Readable.from(exporter.pages(request.store, { format, status }));
      return (
        reply
          .type(format === 'csv' ? 'text/csv; charset=utf-8' : 'application/x-ndjson; charset=utf-8')
          .header('content-disposition', `attachment; filename="products-${request.store.id}.${format}"`)
          .header('cache-control', 'no-store')
          // A stream is sent as it is (never serialized); the 200 schema documents what it carries.
          .send(stream as unknown as string)
      );
    },
  );
};
