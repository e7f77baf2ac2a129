import http from 'node:http';
import fc from 'fast-check';
import type { TestApp } from './test-app.js';

/**
 * A seeded fuzz over every operation of the OpenAPI document: real and hostile path parameters,
 * query values (non-finite numbers, huge, negative, empty, unicode, very long), JSON bodies of any
 * shape (deep, wrong types, random product-like items), wrong and malformed content types and
 * multipart bodies, missing, wrong and admin tokens. Every answer must be below 500, carry
 * X-Request-Id, and be in one of the interface's shapes.
 */
export interface FuzzReport {
  requests: number;
  serverErrors: string[];
  outsideEnvelope: string[];
  byStatus: Record<string, number>;
}

/** An answer as the fuzz reads it: what light-my-request and a real socket both give. */
export interface FuzzAnswer {
  statusCode: number;
  headers: Record<string, string | string[] | number | undefined>;
  body: string;
  json(): any;
}

/** What the fuzz runs against: an app in this process (inject) or a server on a port. */
export interface FuzzTarget {
  document: { paths: Record<string, Record<string, any>> };
  store: { store_uuid: string; api_token: string };
  /** A store of another workspace, whose token must not reach the first. */
  other: { store_uuid: string; api_token: string };
  request(options: {
    method: string;
    url: string;
    payload?: string;
    headers: Record<string, string>;
    token: string | null;
  }): Promise<FuzzAnswer>;
}

/** The app of a test, called in process (its store; another store created through its service). */
export async function inProcessTarget(t: TestApp, seed: number): Promise<FuzzTarget> {
  const other = await t.container.stores.createStore({ workspaceName: `fuzz-other-${seed}`, name: 'Other' });
  return {
    document: t.app.swagger() as unknown as FuzzTarget['document'],
    store: t.store,
    other,
    request: ({ method, url, payload, headers, token }) => t.request({ method, url, payload, headers, token }),
  };
}

/** A server on a port (`vitrine serve`): each request on a kept-alive socket, any method with any body. */
export async function httpTarget(
  base: string,
  stores: Pick<FuzzTarget, 'store' | 'other'>,
): Promise<FuzzTarget & { close(): void }> {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 4 });
  const call = (method: string, url: string, headers: Record<string, string>, payload?: string) =>
    new Promise<FuzzAnswer>((resolve, reject) => {
      const request = http.request(new URL(url, base), { method, headers, agent }, (response) => {
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('end', () => {
          const body = Buffer.concat(chunks).toString();
          resolve({
            statusCode: response.statusCode ?? 0,
            headers: response.headers,
            body,
            json: () => JSON.parse(body) as unknown,
          });
        });
        response.on('error', reject);
      });
      request.on('error', reject);
      request.end(payload);
    });
  const document = (await call('GET', '/openapi.json', {})).json() as FuzzTarget['document'];
  return {
    document,
    ...stores,
    request: ({ method, url, payload, headers, token }) =>
      call(method, url, { ...headers, ...(token !== null && { authorization: `Bearer ${token}` }) }, payload),
    close: () => agent.destroy(),
  };
}

interface Operation {
  method: string;
  path: string;
  query: string[];
  pathParams: string[];
  body: 'json' | 'multipart' | 'both' | 'none';
}

function operationsOf(document: { paths: Record<string, Record<string, any>> }): Operation[] {
  const operations: Operation[] = [];
  for (const [path, methods] of Object.entries(document.paths)) {
    // Media bytes are not JSON; /media is fuzzed for its status codes only.
    for (const [method, op] of Object.entries(methods)) {
      const parameters = (op.parameters ?? []) as Array<{ in: string; name: string }>;
      const content = Object.keys(op.requestBody?.content ?? {});
      operations.push({
        method: method.toUpperCase(),
        path,
        query: parameters.filter((p) => p.in === 'query').map((p) => p.name),
        pathParams: parameters.filter((p) => p.in === 'path').map((p) => p.name),
        body:
          content.length === 0
            ? 'none'
            : content.includes('multipart/form-data') && content.includes('application/json')
              ? 'both'
              : content.includes('multipart/form-data')
                ? 'multipart'
                : 'json',
      });
    }
  }
  return operations;
}

const hostileText = fc.oneof(
  fc.constantFrom(
    'Infinity',
    '-Infinity',
    'NaN',
    '1e400',
    '-1',
    '0',
    '99999999999999999999',
    '1.5',
    '',
    ' ',
    '%00',
    '%ff%fe',
    'null',
    'true',
    '[]',
    '{}',
    '<script>',
    "' OR 1=1 --",
    'ä\u0000b',
    '😀',
    '../../etc/passwd',
    'a,b,,c',
  ),
  fc.string({ maxLength: 20 }),
  fc.string({ unit: 'grapheme', maxLength: 10 }),
  fc.integer().map(String),
  fc.constant('x'.repeat(5000)),
);

const productLike = fc.record(
  {
    product_code: fc.oneof(fc.string({ maxLength: 12 }), fc.integer(), fc.constant(null)),
    'Product Name': fc.oneof(fc.string({ maxLength: 30 }), fc.integer(), fc.array(fc.string(), { maxLength: 3 })),
    Category: fc.oneof(fc.constantFrom('Shirts', 'Dresses', ''), fc.string({ maxLength: 10 })),
    'Selling Price': fc.oneof(fc.constantFrom('10', '-5', 'free', '1e400'), fc.double(), fc.integer()),
    Status: fc.oneof(fc.constantFrom('active', 'inactive', 'problem', 'deleted', 'nope'), fc.string({ maxLength: 5 })),
    parent_code: fc.string({ maxLength: 8 }),
    'Image URL 1': fc.oneof(fc.constant('http://127.0.0.1:9/x.jpg'), fc.string({ maxLength: 20 })),
  },
  { requiredKeys: [] },
);

const jsonBody = fc.oneof(
  { weight: 3, arbitrary: fc.array(productLike, { maxLength: 5 }) },
  { weight: 2, arbitrary: fc.jsonValue({ maxDepth: 4 }) },
  { weight: 1, arbitrary: fc.array(fc.jsonValue({ maxDepth: 2 }), { maxLength: 120 }) },
  { weight: 1, arbitrary: fc.constant('['.repeat(5000) + ']'.repeat(5000)).map((text) => ({ raw: text })) },
  { weight: 1, arbitrary: fc.string({ maxLength: 40 }).map((text) => ({ raw: text })) },
);

interface Fuzzed {
  op: Operation;
  params: Record<string, string>;
  query: Array<[string, string]>;
  body: unknown;
  contentType: string | undefined;
  token: 'store' | 'none' | 'bad' | 'admin' | 'other';
}

function fuzzed(operations: Operation[], known: { storeUuid: string; otherStoreUuid: string; codes: string[] }) {
  return fc.constantFrom(...operations).chain((op) =>
    fc.record({
      op: fc.constant(op),
      params: fc.record(
        Object.fromEntries(
          op.pathParams.map((name) => [
            name,
            name === 'store_uuid'
              ? fc.oneof(fc.constant(known.storeUuid), fc.constant(known.otherStoreUuid), hostileText)
              : fc.oneof(fc.constantFrom(...known.codes), hostileText),
          ]),
        ),
      ),
      query: fc.array(
        fc.tuple(
          fc.oneof(
            { weight: 5, arbitrary: fc.constantFrom(...(op.query.length ? op.query : ['x'])) },
            { weight: 1, arbitrary: fc.string({ maxLength: 8 }) },
          ),
          fc.oneof(
            { weight: 2, arbitrary: hostileText },
            { weight: 1, arbitrary: fc.constantFrom(...known.codes, 'active', 'web', '10', '0') },
          ),
        ),
        { maxLength: 5 },
      ),
      body: op.body === 'none' ? fc.constant(undefined) : jsonBody,
      contentType: fc.option(
        fc.constantFrom(
          'application/json',
          'application/json; charset=utf-8',
          'text/plain',
          'multipart/form-data; boundary=xyz',
          'multipart/form-data',
          'application/x-www-form-urlencoded',
          'image/jpeg',
        ),
        { nil: undefined, freq: 5 },
      ),
      // Mostly the credential the path wants, so that requests get past authentication.
      token: op.path.startsWith('/admin/')
        ? fc.constantFrom('admin', 'admin', 'admin', 'admin', 'store', 'none', 'bad')
        : fc.constantFrom('store', 'store', 'store', 'store', 'admin', 'none', 'bad', 'other'),
    }),
  ) as fc.Arbitrary<Fuzzed>;
}

function shapeProblem(res: FuzzAnswer, path: string): string | undefined {
  const requestId = res.headers['x-request-id'];
  if (typeof requestId !== 'string' || requestId === '') return 'no X-Request-Id header';
  const type = String(res.headers['content-type'] ?? '');
  if (res.statusCode === 304 || res.statusCode === 204) return undefined;
  // Successful exports stream NDJSON or CSV and media answer bytes; their errors are JSON like the rest.
  if (res.statusCode < 400 && (path.startsWith('/media') || path.endsWith('/export'))) return undefined;
  if (!type.includes('json')) return `content-type ${type}`;
  let body: any;
  try {
    body = res.json();
  } catch {
    if (type.includes('ndjson')) return undefined;
    return 'body is not JSON';
  }
  if (res.statusCode < 400) return body?.status?.code === 0 ? undefined : 'success outside the envelope';
  const id = body?.status?.request_id ?? body?.request_id;
  if (id !== requestId) return 'error body without the request id';
  const envelope = body?.status?.code === -1 && typeof body.status.message === 'string';
  const detail = body?.status === 'error' && typeof body.detail === 'string';
  return envelope || detail ? undefined : 'error outside the envelope';
}

export async function fuzzApi(
  t: FuzzTarget,
  adminToken: string,
  options: { numRuns: number; seed: number },
): Promise<FuzzReport> {
  const operations = operationsOf(t.document);
  const other = t.other;
  await t.request({
    method: 'POST',
    url: `/v1/products?store_uuid=${t.store.store_uuid}`,
    payload: JSON.stringify([
      { product_code: 'F1', 'Product Name': 'Linen shirt', Category: 'Shirts', 'Selling Price': '20' },
      { product_code: 'F2', 'Product Name': 'Red dress', Category: 'Dresses', 'Selling Price': '40' },
    ]),
    headers: { 'content-type': 'application/json' },
    token: t.store.api_token,
  });
  const known = { storeUuid: t.store.store_uuid, otherStoreUuid: other.store_uuid, codes: ['F1', 'F2', 'c1'] };
  const report: FuzzReport = { requests: 0, serverErrors: [], outsideEnvelope: [], byStatus: {} };
  await fc.assert(
    fc.asyncProperty(fuzzed(operations, known), async (input) => {
      let path = input.op.path;
      for (const [name, value] of Object.entries(input.params))
        path = path.replace(`{${name}}`, encodeURIComponent(value));
      const search = new URLSearchParams();
      if (input.op.query.includes('store_uuid') && !input.query.some(([name]) => name === 'store_uuid'))
        search.append('store_uuid', known.storeUuid);
      for (const [name, value] of input.query) search.append(name, value);
      const url = `${path}${search.size ? `?${search}` : ''}`;
      const raw = (input.body as { raw?: string } | undefined)?.raw;
      const payload = input.body === undefined ? undefined : (raw ?? JSON.stringify(input.body));
      const headers: Record<string, string> = {};
      if (payload !== undefined) headers['content-type'] = input.contentType ?? 'application/json';
      const token =
        input.token === 'store'
          ? t.store.api_token
          : input.token === 'admin'
            ? adminToken
            : input.token === 'other'
              ? other.api_token
              : input.token === 'bad'
                ? `vt_${'x'.repeat(43)}`
                : null;
      let res: FuzzAnswer;
      try {
        res = await t.request({ method: input.op.method, url, payload, headers, token });
      } catch (error) {
        // On a real socket: the server reset or closed the connection instead of answering.
        report.requests++;
        report.serverErrors.push(`${input.op.method} ${url.slice(0, 200)} -> ${(error as Error).message}`);
        return;
      }
      report.requests++;
      report.byStatus[res.statusCode] = (report.byStatus[res.statusCode] ?? 0) + 1;
      const where = `${input.op.method} ${url.slice(0, 200)} -> ${res.statusCode}`;
      if (res.statusCode >= 500) report.serverErrors.push(`${where}: ${res.body.slice(0, 200)}`);
      const problem = shapeProblem(res, path);
      if (problem) report.outsideEnvelope.push(`${where}: ${problem}`);
    }),
    { numRuns: options.numRuns, seed: options.seed, endOnFailure: false },
  );
  return report;
}
