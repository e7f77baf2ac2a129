import { createHash } from 'node:crypto';
import zlib from 'node:zlib';
import { Ajv, type ValidateFunction } from 'ajv';
import formats from 'ajv-formats';
import FindMyWay, { type HTTPVersion } from 'find-my-way';
import type { LightMyRequestResponse } from 'fastify';

// Every answer the HTTP test suite receives is checked against /openapi.json (issue 45): its status
// listed for the operation, its content type listed for that status, a JSON body matching the
// schema. An undocumented answer fails the test that received it.

type Doc = {
  paths: Record<string, Record<string, { responses?: Record<string, ResponseObject> }>>;
  components?: Record<string, unknown>;
};
type ResponseObject = { content?: Record<string, { schema?: Record<string, unknown> }> };

const METHODS = ['get', 'put', 'post', 'delete', 'patch'] as const;

/** The body as sent before any Content-Encoding (a test may ask for a compressed answer). */
function decoded(res: LightMyRequestResponse): Buffer {
  const encoding = String(res.headers['content-encoding'] ?? '');
  if (encoding === 'gzip') return zlib.gunzipSync(res.rawPayload);
  if (encoding === 'deflate') return zlib.inflateSync(res.rawPayload);
  if (encoding === 'br') return zlib.brotliDecompressSync(res.rawPayload);
  return res.rawPayload;
}

const shared = new Map<string, OpenApiConformance>();

/** One checker per distinct document (apps of the same configuration share its compiled schemas). */
export function conformanceFor(doc: unknown): OpenApiConformance {
  const key = createHash('sha1').update(JSON.stringify(doc)).digest('hex');
  let conformance = shared.get(key);
  if (!conformance) shared.set(key, (conformance = new OpenApiConformance(doc as Doc)));
  return conformance;
}

export class OpenApiConformance {
  readonly #router = FindMyWay<HTTPVersion.V1>({ ignoreTrailingSlash: false });
  readonly #ajv = new Ajv({ strict: false, allErrors: false });
  readonly #validators = new Map<string, ValidateFunction>();

  constructor(private readonly doc: Doc) {
    // ajv-formats is CommonJS: its function is the default export's default.
    (formats as unknown as { default: (ajv: Ajv) => void }).default(this.#ajv);
    for (const [path, operations] of Object.entries(doc.paths)) {
      const route = path.replace(/\{([^}]+)\}/g, ':$1');
      for (const method of METHODS)
        if (operations[method]) this.#router.on(method.toUpperCase() as 'GET', route, () => {}, { path, method });
    }
  }

  /** What is wrong with an answer (undefined: it conforms, or the route is not documented). */
  check(method: string, url: string, res: LightMyRequestResponse): string | undefined {
    const found = this.#router.find(method.toUpperCase() as 'GET', url.split('?')[0]);
    if (!found) return undefined;
    const { path, method: verb } = found.store as { path: string; method: string };
    const responses = this.doc.paths[path][verb].responses ?? {};
    const status = String(res.statusCode);
    const response = responses[status] ?? responses[`${status[0]}XX`] ?? responses.default;
    const where = `${method.toUpperCase()} ${path} answered ${status}`;
    if (!response) return `${where}, which the document does not list (${Object.keys(responses).join(', ')})`;
    if (!response.content || res.rawPayload.length === 0 || res.statusCode === 304) return undefined;
    const type = String(res.headers['content-type'] ?? '')
      .split(';')[0]
      .trim();
    const media = response.content[type] ?? response.content['*/*'];
    if (!media)
      return `${where} with ${type || 'no content type'}; listed: ${Object.keys(response.content).join(', ')}`;
    if (!(type === 'application/json' || type.endsWith('+json')) || !media.schema) return undefined;
    const key = `${verb} ${path} ${status} ${type}`;
    const validate =
      this.#validators.get(key) ?? this.#ajv.compile({ ...media.schema, components: this.doc.components });
    this.#validators.set(key, validate);
    let body: unknown;
    try {
      body = JSON.parse(decoded(res).toString('utf8'));
    } catch {
      return `${where}: a ${type} body that is not JSON: ${res.payload.slice(0, 200)}`;
    }
    if (!validate(body))
      return `${where}: the body does not match its schema: ${this.#ajv.errorsText(validate.errors)} in ${res.payload.slice(0, 300)}`;
    return undefined;
  }
}
