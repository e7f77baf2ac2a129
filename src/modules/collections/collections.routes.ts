import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { ok } from '../../http/envelope.js';
import { readYourWritesOf } from '../../http/read-your-writes.js';
import { Envelope, splitList, standardErrors } from '../../http/schemas.js';
import { InvalidInputError } from '../../errors.js';
import type { CollectionsService } from './collections.service.js';
import { COLLECTION_STATUSES } from './collection-document.js';
import {
  CollectionBatch,
  CollectionIdParams,
  CollectionListQuery,
  CollectionView,
  CreatedCollections,
  DeleteCollectionsQuery,
  DeletedCollections,
  Hierarchy,
  Members,
  MembersQuery,
  Preview,
  PreviewBody,
  PreviewQuery,
  UpdatedCollections,
} from './collections.schemas.js';
import { StoreUuidQuery } from '../../http/schemas.js';
import { Type } from '@sinclair/typebox';

const tags = ['collections'];
const config = { storeScoped: true } as const;

export const collectionsRoutes: FastifyPluginAsyncTypebox<{ collections: CollectionsService }> = async (
  app,
  { collections },
) => {
  app.get(
    '/collection',
    {
      config: { ...config, shopper: true, readYourWrites: true },
      schema: {
        operationId: 'listCollections',
        tags,
        summary: 'List collections (every status unless filtered)',
        querystring: CollectionListQuery,
        response: { 200: Envelope(Type.Array(CollectionView)), ...standardErrors() },
      },
    },
    async (request) => {
      const statuses = splitList(request.query.status);
      const unknown = statuses.find((s) => !(COLLECTION_STATUSES as readonly string[]).includes(s));
      if (unknown !== undefined)
        throw new InvalidInputError(
          `query parameter 'status' must list values of ${COLLECTION_STATUSES.join(', ')}; got "${unknown}"`,
          'status',
        );
      return ok(
        request,
        await collections.list(
          request.store,
          { statuses, offset: request.query.offset, limit: request.query.limit },
          readYourWritesOf(request),
        ),
      );
    },
  );

  app.post(
    '/collection',
    {
      config,
      schema: {
        operationId: 'createCollections',
        tags,
        summary: 'Create collections (201)',
        querystring: StoreUuidQuery,
        body: CollectionBatch,
        response: { 201: Envelope(CreatedCollections), ...standardErrors(413) },
      },
    },
    async (request, reply) =>
      reply
        .code(201)
        .send(ok(request, await collections.create(request.store, request.body as Array<Record<string, unknown>>))),
  );

  app.put(
    '/collection',
    {
      config,
      schema: {
        operationId: 'updateCollections',
        tags,
        summary: 'Update collections ({id, …changed fields}; membership is re-evaluated at each save)',
        querystring: StoreUuidQuery,
        body: CollectionBatch,
        response: { 200: Envelope(UpdatedCollections), ...standardErrors(413) },
      },
    },
    async (request) =>
      ok(request, await collections.update(request.store, request.body as Array<Record<string, unknown>>)),
  );

  app.delete(
    '/collection',
    {
      config,
      schema: {
        operationId: 'deleteCollections',
        tags,
        summary: "Delete collections; their children move up to the deleted collection's parent",
        querystring: DeleteCollectionsQuery,
        response: { 200: Envelope(DeletedCollections), ...standardErrors() },
      },
    },
    async (request) => ok(request, await collections.delete(request.store, splitList(request.query.ids))),
  );

  app.get(
    '/collection/hierarchy',
    {
      config: { ...config, shopper: true, readYourWrites: true },
      schema: {
        operationId: 'getCollectionHierarchy',
        tags,
        summary: 'The tree of active collections',
        querystring: StoreUuidQuery,
        response: { 200: Envelope(Hierarchy), ...standardErrors() },
      },
    },
    async (request) => ok(request, await collections.hierarchy(request.store, readYourWritesOf(request))),
  );

  app.post(
    '/collection/preview',
    {
      config,
      schema: {
        operationId: 'previewCollection',
        tags,
        summary: 'Preview a collection without saving it (extension)',
        description:
          'Evaluates one collection body (filters, heroProducts, sortBy, minProducts, static) over the catalog as it is now and answers what saving it would give: the effective status, the exact totalProducts and the first `limit` members. Nothing is stored. Invalid rules answer 422 naming the problem.',
        querystring: PreviewQuery,
        body: PreviewBody,
        response: { 200: Envelope(Preview), ...standardErrors() },
      },
    },
    async (request) =>
      ok(
        request,
        await collections.preview(request.store, request.body as Record<string, unknown>, request.query.limit),
      ),
  );

  app.get(
    '/collection/:id/products',
    {
      config: { ...config, shopper: true, readYourWrites: true },
      schema: {
        operationId: 'listCollectionProducts',
        tags,
        summary: 'Members of a collection: heroes first, then by sortBy.dynamic',
        params: CollectionIdParams,
        querystring: MembersQuery,
        response: { 200: Envelope(Members), ...standardErrors() },
      },
    },
    async (request) =>
      ok(
        request,
        await collections.products(request.store, request.params.id, request.query, readYourWritesOf(request)),
      ),
  );
};
