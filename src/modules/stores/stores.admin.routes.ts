import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { ok } from '../../http/envelope.js';
import { Envelope, standardErrors } from '../../http/schemas.js';
import { InvalidRequestError } from '../../errors.js';
import type { StoresService } from './stores.service.js';
import type { TokensService } from './tokens.service.js';
import {
  AllowedOriginsSchema,
  CreatedStoreSchema,
  CreatedTokenSchema,
  CreateStoreBody,
  CreateTokenBody,
  CreateWorkspaceBody,
  RevokedTokenSchema,
  StoreListItemSchema,
  TokenIdParams,
  TokenListQuery,
  TokenSchema,
  WorkspaceSchema,
} from './stores.schemas.js';
import { storeSettingRoutes } from '../../http/store-setting-routes.js';

const tags = ['admin'];

/** The operator API of workspaces, stores, tokens and CORS origins (CONTRACT §2): the same operations as the CLI. */
export const storesAdminRoutes: FastifyPluginAsyncTypebox<{ stores: StoresService; tokens: TokensService }> = async (
  app,
  { stores, tokens },
) => {
  app.get(
    '/workspaces',
    {
      schema: {
        operationId: 'adminListWorkspaces',
        tags,
        summary: 'List workspaces',
        response: { 200: Envelope(Type.Array(WorkspaceSchema)), ...standardErrors() },
      },
    },
    async (request) => ok(request, await stores.listWorkspaces()),
  );

  app.post(
    '/workspaces',
    {
      schema: {
        operationId: 'adminCreateWorkspace',
        tags,
        summary: 'Create a workspace (idempotent by name)',
        body: CreateWorkspaceBody,
        response: { 201: Envelope(WorkspaceSchema), 200: Envelope(WorkspaceSchema), ...standardErrors() },
      },
    },
    async (request, reply) => {
      const { created, ...workspace } = await stores.createWorkspace(request.body.name);
      return reply.code(created ? 201 : 200).send(ok(request, workspace));
    },
  );

  app.get(
    '/stores',
    {
      schema: {
        operationId: 'adminListStores',
        tags,
        summary: 'List every store',
        response: { 200: Envelope(Type.Array(StoreListItemSchema)), ...standardErrors() },
      },
    },
    async (request) => ok(request, await stores.listStores()),
  );

  app.post(
    '/stores',
    {
      schema: {
        operationId: 'adminCreateStore',
        tags,
        summary: 'Register a store and issue a token for its workspace',
        body: CreateStoreBody,
        response: { 201: Envelope(CreatedStoreSchema), ...standardErrors() },
      },
    },
    async (request, reply) => {
      const body = request.body;
      let workspaceName = body.workspace_name;
      if (!workspaceName && body.workspace_id) {
        workspaceName = (await stores.listWorkspaces()).find((w) => w.workspace_id === body.workspace_id)?.name;
        if (!workspaceName) throw new InvalidRequestError(`workspace ${body.workspace_id} not found`, 'workspace_id');
      }
      if (!workspaceName) throw new InvalidRequestError("body 'workspace_name' is required", 'workspace_name');
      const created = await stores.createStore({
        workspaceName,
        name: body.name,
        website: body.website,
        countries: body.country,
        channels: body.channels,
        taxonomy: body.taxonomy,
        language: body.language,
        linkedStoreId: body.linked_store_id,
      });
      return reply.code(201).send(ok(request, created));
    },
  );

  app.post(
    '/tokens',
    {
      schema: {
        operationId: 'adminCreateToken',
        tags,
        summary: 'Issue another token for a workspace, or a publishable search key for some of its stores',
        body: CreateTokenBody,
        response: { 201: Envelope(CreatedTokenSchema), ...standardErrors() },
      },
    },
    async (request, reply) => {
      const { workspace_id, scope, store_uuids } = request.body;
      return reply
        .code(201)
        .send(ok(request, await tokens.createToken(workspace_id, { scope, storeIds: store_uuids })));
    },
  );

  app.get(
    '/tokens',
    {
      schema: {
        operationId: 'adminListTokens',
        tags,
        summary: "List a workspace's tokens and publishable keys (never the token itself: only its hash is kept)",
        querystring: TokenListQuery,
        response: { 200: Envelope(Type.Array(TokenSchema)), ...standardErrors() },
      },
    },
    async (request) => ok(request, await tokens.listTokens(request.query.workspace_id)),
  );

  app.delete(
    '/tokens/:token_id',
    {
      schema: {
        operationId: 'adminRevokeToken',
        tags,
        summary: 'Revoke a token (effective at once on every process)',
        params: TokenIdParams,
        response: { 200: Envelope(RevokedTokenSchema), ...standardErrors() },
      },
    },
    async (request) => ok(request, await tokens.revokeToken(request.params.token_id)),
  );

  storeSettingRoutes(app, {
    path: 'cors',
    tags,
    body: AllowedOriginsSchema,
    response: AllowedOriginsSchema,
    read: {
      operationId: 'adminGetAllowedOrigins',
      summary: 'The browser origins allowed to call the API for a store (CORS)',
      handle: async (store) => ({ allowed_origins: await stores.allowedOrigins(store) }),
    },
    replace: {
      operationId: 'adminSetAllowedOrigins',
      summary: 'Replace the browser origins allowed to call the API for a store (CORS)',
      description:
        'Preflights (OPTIONS) from these origins are answered with Access-Control-Allow-Origin, and so are the answers to their requests; any other origin gets nothing reflected (a preflight: 403). Applies at once in every API process of the server; a change made with the CLI within 30 s.',
      handle: async (store, body) => ({ allowed_origins: await stores.setAllowedOrigins(store, body.allowed_origins) }),
    },
  });
};
