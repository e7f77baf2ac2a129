import type { FastifyDynamicSwaggerOptions } from '@fastify/swagger';
import type { FastifySchema, RouteOptions } from 'fastify';
import { Type, type TSchema } from '@sinclair/typebox';
import { VERSION } from '../version.js';

const API_DESCRIPTION = `Catalog management for fashion stores: products, assets, search, collections, complete the look.

**Credentials.** Every /v1 request carries \`Authorization: Bearer <token>\` (or \`apikey: <token>\`).
A workspace token (\`vitrine store create\`, \`vitrine token create\`) can do everything on every store of its
workspace. A publishable key (\`vitrine token create --scope search --store UUID\`) is safe to ship in a
storefront's browser code: it can only call the shopper endpoints (text search, search by photo, similar,
complementary, collections, store details) of the stores it names, with its own per-shopper rate limit;
anything else answers 403. The operator API under /admin/v1 takes \`Authorization: Bearer $VITRINE_ADMIN_TOKEN\`.

**Envelopes.** Every response has \`X-Request-Id\` (yours, or a generated UUID), also inside the JSON body.
Success bodies are \`{"status":{"code":0,"message":"SUCCESS","request_id":…},"data":…}\`. 400 (malformed or
missing input) and 422 (input that fails the format) use \`{"detail","status":"error","request_id"}\`; other
errors use the envelope with \`status.code\` -1; the asset endpoints add \`data.error_info\`.

**Limits.** VITRINE_RATE_LIMIT requests per minute per token (RateLimit-Limit/Remaining/Reset on every /v1
answer, Retry-After on 429). Unknown query parameters are ignored.

**Caching.** GET answers carry an \`ETag\` computed over \`data\` (the request id aside): send it back in
\`If-None-Match\` for a 304. Answers over 1 KB are compressed (br, gzip, deflate) when \`Accept-Encoding\` allows.

**Browsers.** CORS is allowed per store for the origins its operator lists
(\`vitrine store cors --store UUID --origin https://shop.example\`).`;

const TAGS = [
  { name: 'stores', description: 'the store a token (or a publishable key) sees' },
  { name: 'products', description: 'catalog writes, listings, quality reports and bulk export' },
  { name: 'assets', description: 'images, videos and documents linked to products per sales channel' },
  {
    name: 'search',
    description: 'text search, listings with facets, suggestions, search by photo and visually similar products',
  },
  { name: 'signals', description: 'shopper events: what shoppers view, click, add to cart, buy and search' },
  { name: 'collections', description: 'rule and static collections, their members and hierarchy' },
  { name: 'complements', description: 'complete the look' },
  { name: 'media', description: 'uploaded photos and files served by Vitrine' },
  { name: 'admin', description: 'the operator API (VITRINE_ADMIN_TOKEN)' },
];

const header = (description: string, schema: Record<string, unknown>) => ({ description, schema });
const HEADERS = {
  RequestId: header("the caller's X-Request-Id when it is a plausible id, else a generated UUID", {
    type: 'string',
  }),
  RateLimitLimit: header('requests allowed per window (one minute)', { type: 'integer' }),
  RateLimitRemaining: header('requests left in the current window', { type: 'integer' }),
  RateLimitReset: header('seconds until the window resets', { type: 'integer' }),
  RetryAfter: header('seconds to wait before retrying', { type: 'integer' }),
  Allow: header('the methods the path accepts', { type: 'string' }),
  ETag: header("validator of the answer's data; send it as If-None-Match for a 304", { type: 'string' }),
  CacheControl: header('how long the answer may be reused', { type: 'string' }),
};

/** A file part of a multipart body. */
export const FilePart = (description: string) => Type.String({ format: 'binary', description });

/** Operations a publishable key may call (see auth.ts: routes with `config.shopper`). */
const PUBLISHABLE_NOTE = '\n\nAllowed with a publishable (search) key.';

interface RouteDoc {
  schema: FastifySchema & { hide?: boolean; operationId?: string; querystring?: TSchema; description?: string };
  url: string;
  route: RouteOptions;
}

/** A query parameter with a default is optional to the caller (ajv fills it in before `required` is checked). */
function optionalDefaults(query: TSchema): TSchema {
  const properties = (query.properties ?? {}) as Record<string, { default?: unknown }>;
  const required = ((query.required ?? []) as string[]).filter((name) => properties[name]?.default === undefined);
  const { required: _dropped, ...rest } = query;
  return required.length > 0 ? { ...rest, required } : rest;
}

/** Per route: the operation id is mandatory, defaults make parameters optional, multipart bodies are described. */
function documentRoute({ schema, url, route }: RouteDoc) {
  if (!schema || schema.hide) return { schema, url };
  if (!schema.operationId) throw new Error(`route ${String(route.method)} ${url} has no operationId`);
  const next: Record<string, unknown> = { ...schema };
  if (schema.querystring) next.querystring = optionalDefaults(schema.querystring);
  const documented = route.config?.documentedBody;
  if (documented) {
    next.body = {
      content: Object.fromEntries(Object.entries(documented).map(([type, body]) => [type, { schema: body }])),
    };
  }
  if (route.config?.shopper) next.description = `${schema.description ?? ''}${PUBLISHABLE_NOTE}`.trim();
  if (url.startsWith('/admin/')) next.security = [{ adminToken: [] }];
  if (url.startsWith('/media/')) next.security = [];
  return { schema: next, url };
}

type Json = Record<string, unknown>;
const SUCCESS: Record<string, string> = {
  '200': 'success: the envelope with `data`',
  '201': 'created: the envelope with `data`',
  '202': 'accepted: queued, the envelope with `data`',
};
const ref = (name: string) => ({ $ref: `#/components/headers/${name}` });

/** Whole document: the headers every answer carries, the 405 of every path, and the shared components. */
function finishDocument({ openapiObject }: { openapiObject: Json }) {
  const paths = openapiObject.paths as Record<string, Record<string, Json>>;
  for (const [path, operations] of Object.entries(paths)) {
    const limited = path.startsWith('/v1/');
    const assetPath = path.startsWith('/v1/assets');
    for (const operation of Object.values(operations)) {
      const responses = operation.responses as Record<string, Json>;
      if (!responses['405']) {
        responses['405'] = {
          description: 'method not allowed on this path (see the Allow header)',
          content: {
            'application/json': {
              schema: { $ref: `#/components/schemas/${assetPath ? 'AssetError' : 'ErrorEnvelope'}` },
            },
          },
          headers: { Allow: ref('Allow') },
        };
      }
      for (const [status, response] of Object.entries(responses)) {
        if (response.description === 'Default Response') response.description = SUCCESS[status] ?? 'success';
        const headers: Json = { 'X-Request-Id': ref('RequestId'), ...((response.headers as Json) ?? {}) };
        if (limited) {
          headers['RateLimit-Limit'] = ref('RateLimitLimit');
          headers['RateLimit-Remaining'] = ref('RateLimitRemaining');
          headers['RateLimit-Reset'] = ref('RateLimitReset');
        }
        if (status === '429' || status === '503') headers['Retry-After'] = ref('RetryAfter');
        if (status === '200' && limited && operation === operations.get) {
          headers.ETag = ref('ETag');
          headers['Cache-Control'] = ref('CacheControl');
        }
        response.headers = headers;
      }
      if (operation === operations.get && limited && !responses['304']) {
        responses['304'] = {
          description: 'not modified: If-None-Match named the current ETag',
          headers: { 'X-Request-Id': ref('RequestId'), ETag: ref('ETag') },
        };
      }
    }
  }
  describeWebhookCallback(paths);
  const components = openapiObject.components as Json;
  components.headers = HEADERS;
  components.responses = shareResponses(paths);
  return openapiObject;
}

/** What a webhook receiver gets, as an OpenAPI callback of the operation that subscribes it. */
function describeWebhookCallback(paths: Record<string, Record<string, Json>>) {
  const create = paths['/admin/v1/stores/{store_uuid}/webhooks']?.post;
  if (!create) return;
  create.callbacks = {
    catalogEvents: {
      '{$request.body#/url}': {
        post: {
          summary: 'Catalog events, signed',
          description:
            'Verify `X-Vitrine-Signature: t=<unix>,v1=<hex>`: HMAC-SHA256 with the subscription secret over `t + "." + raw body`. Answer 2xx to acknowledge; 410 disables the subscription; other 4xx (but 408, 429) are not retried; anything else is retried with backoff.',
          parameters: [
            { name: 'X-Vitrine-Signature', in: 'header', required: true, schema: { type: 'string' } },
            { name: 'X-Vitrine-Delivery', in: 'header', required: true, schema: { type: 'string' } },
            { name: 'X-Vitrine-Subscription', in: 'header', required: true, schema: { type: 'string' } },
          ],
          requestBody: {
            required: true,
            content: { 'application/json': { schema: { $ref: '#/components/schemas/WebhookPayload' } } },
          },
          responses: {
            '200': { description: 'acknowledged (any 2xx)' },
            '410': { description: 'the receiver is gone for good: the subscription is disabled' },
            '4XX': { description: 'refused: logged as rejected and not retried (but 408 and 429, retried)' },
          },
        },
      },
    },
  };
}

const STATUS_NAMES: Record<string, string> = {
  '304': 'NotModified',
  '400': 'BadRequest',
  '401': 'Unauthorized',
  '403': 'Forbidden',
  '404': 'NotFound',
  '405': 'MethodNotAllowed',
  '409': 'Conflict',
  '413': 'PayloadTooLarge',
  '416': 'RangeNotSatisfiable',
  '422': 'ValidationFailed',
  '429': 'RateLimited',
  '500': 'InternalError',
  '502': 'BackingServiceUnavailable',
  '503': 'NotReady',
};

/**
 * The error answers repeat across operations: each distinct one becomes a named response component
 * (`NotFound`, `AssetBadRequest`, `AdminUnauthorized`, …) that operations refer to.
 */
function shareResponses(paths: Record<string, Record<string, Json>>): Json {
  const shared: Json = {};
  const nameOf = new Map<string, string>();
  for (const [path, operations] of Object.entries(paths)) {
    const context = path.startsWith('/admin/')
      ? 'Admin'
      : path.startsWith('/media/')
        ? 'Media'
        : path.startsWith('/v1/assets')
          ? 'Asset'
          : '';
    for (const operation of Object.values(operations)) {
      const responses = operation.responses as Record<string, Json>;
      for (const [status, response] of Object.entries(responses)) {
        if (Number(status) < 300 || !STATUS_NAMES[status]) continue;
        const key = JSON.stringify(response);
        let name = nameOf.get(key);
        if (!name) {
          const base = `${context}${STATUS_NAMES[status]}`;
          name = base;
          for (let n = 2; name in shared; n++) name = `${base}${n}`;
          nameOf.set(key, name);
          shared[name] = response;
        }
        responses[status] = { $ref: `#/components/responses/${name}` };
      }
    }
  }
  return shared;
}

/** The @fastify/swagger options: one document generated from the same schemas that validate requests. */
export function openApiOptions(): FastifyDynamicSwaggerOptions {
  return {
    openapi: {
      openapi: '3.0.3',
      info: {
        title: 'Vitrine catalog API',
        version: VERSION,
        description: API_DESCRIPTION,
        license: { name: 'Apache-2.0', url: 'https://www.apache.org/licenses/LICENSE-2.0' },
      },
      servers: [{ url: '/', description: 'the Vitrine server that serves this document' }],
      tags: TAGS,
      components: {
        securitySchemes: {
          bearer: {
            type: 'http',
            scheme: 'bearer',
            description: 'a workspace token (vt_…) or a publishable search key (vt_pk_…)',
          },
          apikey: { type: 'apiKey', in: 'header', name: 'apikey', description: 'the same token in an apikey header' },
          adminToken: { type: 'http', scheme: 'bearer', description: 'VITRINE_ADMIN_TOKEN (operator API only)' },
        },
      },
      security: [{ bearer: [] }, { apikey: [] }],
    },
    refResolver: {
      buildLocalReference: (json, _baseUri, _fragment, i) => (typeof json.$id === 'string' ? json.$id : `def-${i}`),
    },
    transform: documentRoute as unknown as FastifyDynamicSwaggerOptions['transform'],
    transformObject: finishDocument as unknown as FastifyDynamicSwaggerOptions['transformObject'],
  };
}
