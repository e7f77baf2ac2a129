// The hand-written part of @vitrine/client: credentials, multipart uploads and typed errors. Every
// path, parameter and body type comes from the generated `paths` (openapi-typescript), and every
// call goes through openapi-fetch, so a call the API would refuse is a compile error.
import createClient, { type Client } from 'openapi-fetch';
import type { components, operations, paths } from './generated/api.js';

export type { components, operations, paths };
type Schemas = components['schemas'];
export type Product = Schemas['Product'];
export type ProductInput = Schemas['ProductInput'];
export type ProductStatusEntry = Schemas['ProductStatusEntry'];
export type AssetGroup = Schemas['AssetGroup'];
export type Collection = Schemas['Collection'];
export type CollectionInput = Schemas['CollectionInput'];
export type CollectionMember = Schemas['CollectionMember'];
export type SearchHit = Schemas['SearchHit'];
export type VisualHit = Schemas['VisualHit'];
export type Store = Schemas['Store'];
export type MediaFile = Schemas['MediaFile'];
export type ErrorEnvelope = Schemas['ErrorEnvelope'];
export type ValidationError = Schemas['ValidationError'];
export type AssetError = Schemas['AssetError'];
export type ShopperEvent = Schemas['ShopperEvent'];
export type EventsResult = Schemas['EventsResult'];
export type SearchListing = Schemas['SearchListing'];

/** An answer that is not a success: its status, the request id to quote, and the message or detail. */
export class VitrineError extends Error {
  readonly status: number;
  readonly requestId: string | undefined;
  readonly body: ErrorEnvelope | ValidationError | AssetError | undefined;

  constructor(status: number, body: unknown, requestId: string | undefined) {
    const parsed = body as Partial<ValidationError> & Partial<ErrorEnvelope> & Partial<AssetError>;
    const detail =
      typeof parsed?.detail === 'string'
        ? parsed.detail
        : (parsed?.data?.error_info?.[0]?.details ?? parsed?.status?.message ?? `HTTP ${status}`);
    super(`${status}: ${detail}`);
    this.name = 'VitrineError';
    this.status = status;
    this.body = body as VitrineError['body'];
    this.requestId = requestId ?? (parsed?.request_id || parsed?.status?.request_id);
  }
}

export interface VitrineClientOptions {
  /** Where Vitrine listens, e.g. `https://catalog.example.com`. */
  baseUrl: string;
  /** A workspace token (vt_…) or a publishable search key (vt_pk_…); the admin token for /admin/v1. */
  token: string;
  /** A fetch of your own (tests, proxies); default: the global fetch. */
  fetch?: typeof globalThis.fetch;
}

type FetchResult<T> = { data?: T; error?: unknown; response: Response };

/** The `data` of a success envelope, or a VitrineError carrying the error body and request id. */
export async function unwrap<T extends { data: unknown }>(call: Promise<FetchResult<T>>): Promise<T['data']> {
  const { data, error, response } = await call;
  if (data !== undefined && response.ok) return data.data;
  throw new VitrineError(response.status, error, response.headers.get('x-request-id') ?? undefined);
}

export interface PhotoSearchOptions {
  filters?: Record<string, string | string[]>;
  offset?: number;
  limit?: number;
  /** true or 'parent': one result per family; 'colour': per family and colour; false: every variant. */
  groupVariants?: boolean | 'parent' | 'colour';
}

export interface VitrineClient {
  /** The generated client: `api.GET('/v1/search', { params: { query: { store_uuid, query } } })`. */
  api: Client<paths>;
  /** POST /v1/visual-search with the photo as the multipart field `image`. */
  searchByPhoto(storeUuid: string, photo: Blob, options?: PhotoSearchOptions): Promise<VisualHit[]>;
  /**
   * POST /v1/events: a batch of shopper events (at most 500). A retried batch counts once (event_id);
   * each faulty event is listed in `error_info`, the others are stored.
   */
  trackEvents(storeUuid: string, events: ShopperEvent[]): Promise<EventsResult>;
  /** POST /v1/media with one or more files; answers their URLs (usable as `Image URL n`). */
  uploadMedia(storeUuid: string, files: Array<{ name: string; data: Blob }>): Promise<Schemas['MediaUploadResult']>;
}

export function createVitrineClient(options: VitrineClientOptions): VitrineClient {
  const api = createClient<paths>({
    baseUrl: options.baseUrl.replace(/\/+$/, ''),
    headers: { authorization: `Bearer ${options.token}` },
    ...(options.fetch ? { fetch: options.fetch } : {}),
  });
  // Multipart bodies are built here: the generated types describe the parts (format binary, typed as
  // string, hence the placeholders in `body`), FormData carries the bytes.
  const formData = (parts: Array<[string, Blob, string]>) => () => {
    const form = new FormData();
    for (const [field, blob, name] of parts) form.append(field, blob, name);
    return form;
  };
  return {
    api,
    searchByPhoto(storeUuid, photo, { filters, offset, limit, groupVariants } = {}) {
      return unwrap(
        api.POST('/v1/visual-search', {
          params: {
            query: {
              store_uuid: storeUuid,
              ...(filters ? { filters: JSON.stringify(filters) } : {}),
              ...(offset !== undefined ? { offset } : {}),
              ...(limit !== undefined ? { limit } : {}),
              ...(groupVariants !== undefined
                ? {
                    group_variants: groupVariants === true ? 'true' : groupVariants === false ? 'false' : groupVariants,
                  }
                : {}),
            },
          },
          body: { image: '' },
          bodySerializer: formData([['image', photo, 'photo']]),
        }),
      );
    },
    trackEvents(storeUuid, events) {
      return unwrap(api.POST('/v1/events', { params: { query: { store_uuid: storeUuid } }, body: events }));
    },
    uploadMedia(storeUuid, files) {
      return unwrap(
        api.POST('/v1/media', {
          params: { query: { store_uuid: storeUuid } },
          body: { file: files.map(() => '') },
          bodySerializer: formData(files.map((file): [string, Blob, string] => ['file', file.data, file.name])),
        }),
      );
    },
  };
}
