import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type, type Static, type TSchema } from '@sinclair/typebox';
import { ok } from './envelope.js';
import { Envelope, standardErrors } from './schemas.js';

type TypeboxApp = Parameters<FastifyPluginAsyncTypebox>[0];

interface SettingOperation {
  operationId: string;
  summary: string;
  description?: string;
}

/**
 * The operator API's pair for one of a store's settings: `GET /stores/{store_uuid}/<path>` reads
 * it, `PUT` replaces it with a body of `body`'s schema; both answer `response` in the envelope.
 * Each module that owns a setting (mapping profile, synonyms, taxonomy, vocabulary, CORS origins)
 * declares its pair through here.
 */
export function storeSettingRoutes<B extends TSchema, R extends TSchema>(
  app: TypeboxApp,
  setting: {
    path: string;
    tags: string[];
    body: B;
    response: R;
    read: SettingOperation & { handle: (storeUuid: string) => Promise<Static<R>> };
    replace: SettingOperation & { handle: (storeUuid: string, body: Static<B>) => Promise<Static<R>> };
  },
) {
  const url = `/stores/:store_uuid/${setting.path}`;
  const params = Type.Object({ store_uuid: Type.String() });
  // Typed loosely here: each handler is checked against R where it is declared.
  const response = { 200: Envelope(setting.response as TSchema), ...standardErrors() };
  const describe = ({ operationId, summary, description }: SettingOperation) => ({
    operationId,
    tags: setting.tags,
    summary,
    ...(description ? { description } : {}),
  });
  app.get(url, { schema: { ...describe(setting.read), params, response } }, async (request) =>
    ok(request, await setting.read.handle(request.params.store_uuid)),
  );
  app.put(url, { schema: { ...describe(setting.replace), params, body: setting.body, response } }, async (request) =>
    ok(request, await setting.replace.handle(request.params.store_uuid, request.body as Static<B>)),
  );
}
