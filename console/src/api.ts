// Calls the same /v1 and /admin/v1 endpoints as any client, and turns their errors into words.
import { loadSession } from './session';
import type { components } from '../../clients/typescript/src/generated/api';

export class ApiError extends Error {
  constructor(
    message: string,
    readonly httpStatus: number,
    readonly requestId: string | null,
  ) {
    super(message);
  }
}

type Query = Record<string, string | number | boolean | undefined | null>;

export interface CallOptions {
  method?: string;
  query?: Query;
  json?: unknown;
  form?: FormData;
  /** Use the operator token (the /admin/v1 API). */
  admin?: boolean;
  /** A token to try instead of the session's (sign-in). */
  token?: string;
  signal?: AbortSignal;
}

export function url(path: string, query: Query = {}): string {
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(query))
    if (value !== undefined && value !== null && value !== '') params.set(key, String(value));
  const text = params.toString();
  return text ? `${path}?${text}` : path;
}

/** The API's message for a failure: `detail` (400/422) or `status.message` (the envelope). */
function messageOf(body: unknown): string | null {
  if (!body || typeof body !== 'object') return null;
  const record = body as { detail?: unknown; status?: { message?: unknown } | string };
  if (typeof record.detail === 'string') return record.detail;
  if (record.status && typeof record.status === 'object' && typeof record.status.message === 'string')
    return record.status.message;
  return null;
}

/** What went wrong, said for a merchandiser; the API's own message follows. */
export function explain(status: number, apiMessage: string | null, admin: boolean): string {
  const said = apiMessage ? ` (${apiMessage})` : '';
  switch (status) {
    case 401:
      return admin
        ? `The operator token was not accepted: it is wrong or the operator API is off${said}.`
        : `Your API token was not accepted: it is mistyped, revoked or belongs to nothing. Sign in again with a valid token${said}.`;
    case 403:
      return `This token is not allowed to do that${said}.`;
    case 404:
      return `Not found: it does not exist, or not in your workspace${said}.`;
    case 413:
      return `Too large: the file or request is bigger than Vitrine accepts${said}.`;
    case 400:
    case 422:
      return `Vitrine refused the request: ${apiMessage ?? 'the input is not valid'}.`;
    case 429:
      return `Too many requests in a short time: wait a moment and try again${said}.`;
    case 502:
    case 503:
      return `A service Vitrine depends on is unavailable; try again shortly${said}.`;
    default:
      return status >= 500
        ? `Vitrine failed to answer (error ${status}). Give your operator the request id below.`
        : `The request failed (error ${status})${said}.`;
  }
}

export async function call<T>(path: string, options: CallOptions = {}): Promise<T> {
  const session = loadSession();
  const token = options.token ?? (options.admin ? session?.adminToken : session?.token);
  const headers: Record<string, string> = { accept: 'application/json' };
  if (token) headers.authorization = `Bearer ${token}`;
  let body: BodyInit | undefined;
  if (options.form) body = options.form;
  else if (options.json !== undefined) {
    headers['content-type'] = 'application/json';
    body = JSON.stringify(options.json);
  }
  const response = await send(
    path,
    options.query,
    { method: options.method ?? 'GET', headers, body, signal: options.signal },
    !!options.admin,
  );
  const type = response.headers.get('content-type') ?? '';
  if (type.includes('application/x-ndjson')) {
    const text = await response.text();
    return text
      .split('\n')
      .filter((line) => line.trim() !== '')
      .map((line) => JSON.parse(line) as unknown) as T;
  }
  return ((await response.json()) as { data: T }).data;
}

/** One request with the console's fetch settings; a failure becomes an ApiError said in words. */
async function send(path: string, query: Query | undefined, init: RequestInit, admin: boolean): Promise<Response> {
  let response: Response;
  try {
    response = await fetch(url(path, query), { ...init, cache: 'no-store', credentials: 'omit' });
  } catch (error) {
    if ((error as Error).name === 'AbortError') throw error;
    throw new ApiError('Vitrine cannot be reached: check the network or that the server is running.', 0, null);
  }
  if (response.ok) return response;
  const type = response.headers.get('content-type') ?? '';
  const parsed: unknown = type.includes('application/json') ? await response.json().catch(() => null) : null;
  throw new ApiError(
    explain(response.status, messageOf(parsed), admin),
    response.status,
    response.headers.get('x-request-id'),
  );
}

/** Downloads an authorised file (the export) through fetch, since a plain link cannot carry the token. */
export async function download(path: string, query: Query, filename: string): Promise<void> {
  const token = loadSession()?.token;
  const response = await send(path, query, { headers: token ? { authorization: `Bearer ${token}` } : {} }, false);
  const link = document.createElement('a');
  link.href = URL.createObjectURL(await response.blob());
  link.download = filename;
  link.click();
  setTimeout(() => URL.revokeObjectURL(link.href), 10_000);
}

// ---- the shapes the console reads ---------------------------------------------------------------
// The API's own schemas, as generated for @vitrine/client from /openapi.json: a field the API renames
// or drops fails the console's type check instead of showing blank cells.

export type Schemas = components['schemas'];
export type StoreRef = Pick<Schemas['StoreSummary'], 'store_uuid' | 'store_name' | 'default_channel'>;
export type StoreDetails = Schemas['Store'];
export type Product = Schemas['Product'];
export interface ProductPage {
  total: number;
  /** Present when asked for: `at_least` while a large store's attribute filters are still being counted. */
  total_precision?: 'exact' | 'at_least';
  products: Product[];
}
export type Failure = Schemas['FailureCount'];
export type ImageStatus = Schemas['ImageStatus'];
export type Member = Schemas['CollectionMember'];
export type Collection = Schemas['Collection'];
export type ImportJob = Schemas['ImportJob'];

export const STATUSES = ['new', 'active', 'problem', 'inactive', 'draft', 'under review'] as const;
/** `problem` is set by the quality checks only. */
export const SETTABLE_STATUSES = ['new', 'active', 'inactive', 'draft', 'under review'] as const;

/** The products of the given codes (search and similar hits carry no images, names or prices). */
export async function productsByCode(storeId: string, codes: string[], signal: AbortSignal): Promise<Product[]> {
  if (codes.length === 0) return [];
  const page = await call<ProductPage>('/v1/products', {
    query: { store_uuid: storeId, product_code: codes.join(','), limit: 100 },
    signal,
  });
  return page.products;
}

/** The first image of a product: `Image URL 1` … `Image URL 6`. */
export function firstImage(product: Record<string, unknown>): string | null {
  for (let n = 1; n <= 6; n++) {
    const value = product[`Image URL ${n}`];
    if (typeof value === 'string' && value.trim() !== '') return value;
  }
  return null;
}

/** Only http(s) and same-origin image addresses reach an <img>: a javascript: or data: URL in a catalog is shown as text. */
export function safeImage(value: unknown): string | null {
  if (typeof value !== 'string') return null;
  return /^(https?:\/\/|\/media\/)/i.test(value.trim()) ? value.trim() : null;
}
