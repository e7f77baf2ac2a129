import { Type, type TSchema } from '@sinclair/typebox';
import { component } from './components.js';

/** The success envelope around a payload schema (CONTRACT §4). */
const SuccessStatus = component(
  'SuccessStatus',
  Type.Object({
    code: Type.Literal(0),
    message: Type.String({ examples: ['SUCCESS'] }),
    request_id: Type.String({ description: "the caller's X-Request-Id, or a generated UUID" }),
  }),
);

export function Envelope<T extends TSchema>(data: T) {
  return Type.Object({ status: SuccessStatus, data });
}

const ErrorStatus = component(
  'ErrorStatus',
  Type.Object({
    code: Type.Literal(-1),
    message: Type.String({ description: 'what went wrong' }),
    request_id: Type.String({ description: "the caller's X-Request-Id, or a generated UUID" }),
  }),
);

export const EnvelopeError = component(
  'ErrorEnvelope',
  Type.Object({ status: ErrorStatus }, { description: 'error envelope (401, 403, 404, 405, 413, 429, 500, 502, 503)' }),
);

export const DetailError = component(
  'ValidationError',
  Type.Object(
    {
      detail: Type.String({ description: 'what is wrong, naming the field' }),
      status: Type.Literal('error'),
      request_id: Type.String({ description: "the caller's X-Request-Id, or a generated UUID" }),
    },
    { description: 'bad request (400) or validation error (422)' },
  ),
);

export const AssetError = component(
  'AssetError',
  Type.Object(
    {
      status: ErrorStatus,
      data: Type.Object({
        error_info: Type.Array(Type.Object({ reason: Type.String(), details: Type.String() })),
      }),
    },
    { description: 'asset endpoints: every error, validation failures answered with 400' },
  ),
);

const DESCRIPTIONS: Record<number, string> = {
  400: 'malformed or missing parameter, invalid JSON, wrong content type',
  401: 'invalid or missing token',
  403: 'a publishable (search) key used outside the shopper endpoints or the stores it names',
  404: "store not found (or another workspace's store)",
  405: 'method not allowed on this path (see the Allow header)',
  410: 'gone: the change-feed cursor is older than the retention (data.oldest_sequence says where to resume)',
  413: 'payload too large',
  422: 'validation error: a parameter or body fails the documented format',
  429: 'rate limit exceeded (Retry-After, RateLimit-* headers)',
  500: 'unexpected server error',
  502: 'the database or another backing service is unreachable',
};

/** Documented error responses of a standard /v1 route. */
export function standardErrors(...extra: number[]) {
  const statuses = [...new Set([400, 401, 403, 404, 422, 429, 500, 502, ...extra])].sort();
  return Object.fromEntries(
    statuses.map((status) => [
      status,
      { ...(status === 400 || status === 422 ? DetailError : EnvelopeError), description: DESCRIPTIONS[status] },
    ]),
  );
}

/** Documented error responses of an asset route. */
export function assetErrors() {
  return Object.fromEntries(
    [400, 401, 403, 404, 429, 500, 502].map((status) => [
      status,
      { ...(status === 401 || status === 403 ? EnvelopeError : AssetError), description: DESCRIPTIONS[status] },
    ]),
  );
}

export const StoreUuidQuery = Type.Object({
  store_uuid: Type.String({ description: 'the store, from `vitrine store create`' }),
});

/** Comma-separated values, or the parameter repeated (CONTRACT §5). */
export function splitList(values: string[] | string | undefined): string[] {
  const list = values === undefined ? [] : Array.isArray(values) ? values : [values];
  return list
    .flatMap((value) => value.split(','))
    .map((value) => value.trim())
    .filter((value) => value !== '');
}
