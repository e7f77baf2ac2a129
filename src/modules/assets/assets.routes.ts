import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { ok } from '../../http/envelope.js';
import { assetErrors, Envelope } from '../../http/schemas.js';
import type { AssetsService } from './assets.service.js';
import {
  AssetGroupsResponse,
  CreateAssetsBody,
  CreateAssetsQuery,
  CreateAssetsResponse,
  DeleteAssetsBody,
  DeleteAssetsResponse,
  ListAssetsQuery,
  UnlinkAssetsBody,
  UnlinkAssetsResponse,
} from './assets.schemas.js';

const tags = ['assets'];
// Every error of these four endpoints uses the asset shape, validation failures included (seed: asset list mapping).
const config = { errorShape: 'asset' } as const;

export const assetsRoutes: FastifyPluginAsyncTypebox<{ assets: AssetsService }> = async (app, { assets }) => {
  app.post(
    '/assets',
    {
      config: { ...config, storeScoped: true },
      schema: {
        operationId: 'createAssets',
        tags,
        summary: 'Create or update asset links with rank assignment',
        querystring: CreateAssetsQuery,
        body: CreateAssetsBody,
        response: { 200: Envelope(CreateAssetsResponse), ...assetErrors() },
      },
    },
    async (request) =>
      ok(
        request,
        await assets.createLinks(request.store, request.query.channel, request.body as Array<Record<string, unknown>>),
      ),
  );

  app.get(
    '/assets',
    {
      config: { ...config, storeScoped: true },
      schema: {
        operationId: 'listAssets',
        tags,
        summary: 'List asset links grouped by parent_code (one channel and asset format)',
        querystring: ListAssetsQuery,
        response: { 200: Envelope(AssetGroupsResponse), ...assetErrors() },
      },
    },
    async (request) => ok(request, await assets.listLinks(request.store, request.query)),
  );

  app.post(
    '/assets/unlink',
    {
      config,
      schema: {
        operationId: 'unlinkAssets',
        tags,
        summary: 'Unlink assets from a parent_code and channel (the assets stay)',
        body: UnlinkAssetsBody,
        response: { 200: Envelope(UnlinkAssetsResponse), ...assetErrors() },
      },
    },
    async (request) =>
      ok(request, await assets.unlink(request.auth!.workspaceId, request.body as Array<Record<string, unknown>>)),
  );

  app.delete(
    '/assets',
    {
      config,
      schema: {
        operationId: 'deleteAssets',
        tags,
        summary: 'Delete assets (and all their links)',
        body: DeleteAssetsBody,
        response: { 200: Envelope(DeleteAssetsResponse), ...assetErrors() },
      },
    },
    async (request) =>
      ok(request, await assets.delete(request.auth!.workspaceId, request.body as Array<Record<string, unknown>>)),
  );
};
