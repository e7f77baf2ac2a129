import fs from 'node:fs';
import path from 'node:path';
import type { Container } from '../../src/container.js';
import { VisionClient } from '../../src/vision/vision-client.js';
import { DEFAULT_MODEL_PATH } from '../../src/vision/model-identity.js';
import { DEFAULT_HEAD_PATH } from '../../src/vision/embedding-head.js';
import { normalise } from '../../src/vision/quantize.js';
import { quantize } from '../../src/vision/quantize.js';
import { SHARED, type CatalogRow } from './harness.js';
import { buildQueries, prng } from './search-queries.js';
import { Agent, fetch as undiciFetch } from 'undici';

// What a shopper and a merchandiser call, timed by the server itself (its Server-Timing header), on
// one store: the same calls at 44k and at 1M in the same run (scale.bench.ts).

export interface Timed {
  /** Server-side p50 / p99 in ms, as the process serving the store timed them (`serving;dur` of a forwarded call). */
  p50: number;
  p99: number;
  /** What forwarding added to the calls another process forwarded (its `app;dur` less `serving;dur`), ms each. */
  hops: number[];
  /** Non-2xx answers (each is a failure of the bench). */
  failures: number;
}

export const percentile = (sorted: number[], p: number) =>
  sorted.length === 0 ? NaN : sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))];

/** Calls `next(i)` `count` times one after the other (after `warm` untimed calls), reading Server-Timing. */
export async function timeCalls(
  base: string,
  token: string,
  count: number,
  next: (i: number) => { path: string; method?: 'GET' | 'POST'; body?: unknown; form?: () => FormData },
  warm = 10,
  /**
   * A connection per call: `vitrine serve`'s processes take connections in turn, so the calls are
   * spread over every process as a load balancer's are (one kept-alive connection reaches one process).
   */
  spread = false,
): Promise<Timed> {
  const times: number[] = [];
  const hops: number[] = [];
  let failures = 0;
  let example = '';
  for (let i = 0; i < warm + count; i++) {
    const call = next(i);
    const init = {
      method: call.method ?? 'GET',
      headers: {
        authorization: `Bearer ${token}`,
        ...(call.body !== undefined && { 'content-type': 'application/json' }),
      },
      body: call.form ? call.form() : call.body !== undefined ? JSON.stringify(call.body) : undefined,
    };
    // (Node's own fetch for the rest: a photo's FormData is Node's, which the package's fetch does not take.)
    const dispatcher = spread && !call.form ? new Agent() : undefined;
    const response = dispatcher
      ? await undiciFetch(`${base}${call.path}`, { ...init, body: init.body as string | undefined, dispatcher })
      : await fetch(`${base}${call.path}`, init);
    await response.arrayBuffer();
    await dispatcher?.close();
    if (!response.ok) {
      failures++;
      example ||= `${call.path} -> ${response.status}`;
      continue;
    }
    if (i < warm) continue;
    const header = response.headers.get('server-timing') ?? '';
    const timing = /app;dur=([\d.]+)/.exec(header);
    const serving = /serving;dur=([\d.]+)/.exec(header);
    if (timing) times.push(Number((serving ?? timing)[1]));
    if (timing && serving) hops.push(Number(timing[1]) - Number(serving[1]));
  }
  if (example) console.log(`scale.bench: ${failures} failed, e.g. ${example}`);
  times.sort((a, b) => a - b);
  return { p50: percentile(times, 0.5), p99: percentile(times, 0.99), hops, failures };
}

/**
 * Unmeasured calls until `steady` in a row answer within `underMs` server-side (at most `maxSeconds`):
 * the seconds it took, and whether they did. After a server's start a large store's indexes are built
 * one after another (at 1M on SQLite about 45 s in the process that serves it), and searches answered
 * meanwhile take up to hundreds of ms; the timed calls measure the store once warm.
 */
export async function warmUntilSteady(
  base: string,
  token: string,
  next: (i: number) => { path: string },
  { steady = 20, underMs = 100, maxSeconds = 120 } = {},
): Promise<{ seconds: number; steady: boolean }> {
  const started = performance.now();
  let inARow = 0;
  for (let i = 0; inARow < steady && performance.now() - started < maxSeconds * 1000; i++) {
    const response = await fetch(`${base}${next(i).path}`, { headers: { authorization: `Bearer ${token}` } });
    await response.arrayBuffer();
    const header = response.headers.get('server-timing') ?? '';
    const ms = Number((/serving;dur=([\d.]+)/.exec(header) ?? /app;dur=([\d.]+)/.exec(header))?.[1] ?? Infinity);
    inARow = response.ok && ms < underMs ? inARow + 1 : 0;
  }
  return { seconds: (performance.now() - started) / 1000, steady: inARow >= steady };
}

/** A real product photo of the shared dataset, for search by photo (undefined without it). */
export function aPhoto(rows: CatalogRow[]): Buffer | undefined {
  const dir = path.join(SHARED, 'datasets/fashion-images');
  if (!fs.existsSync(dir)) return undefined;
  const found = (name: string): string | undefined => {
    for (const entry of fs.readdirSync(name, { withFileTypes: true })) {
      const full = path.join(name, entry.name);
      if (entry.isDirectory()) {
        const inner = found(full);
        if (inner) return inner;
      } else if (/\.(jpe?g|png)$/i.test(entry.name)) return full;
    }
    return undefined;
  };
  const file = found(dir);
  return file && rows.length ? fs.readFileSync(file) : undefined;
}

/**
 * Every distinct photo URL of a store indexed with a synthetic vector (random, unit length, quantized
 * as the pipeline does), before the server starts: the generated catalog's photos do not exist, and a
 * million of them would take days to embed on this machine. The image pipeline then finds them indexed.
 */
export async function synthesiseVectors(container: Container, storeId: string, urls: Iterable<string>) {
  const vision = new VisionClient({ modelPath: DEFAULT_MODEL_PATH, headPath: DEFAULT_HEAD_PATH, threads: 1 });
  const info = await vision.info();
  await vision.close();
  const random = prng(7);
  const now = new Date().toISOString();
  let batch: Array<Record<string, unknown>> = [];
  let written = 0;
  const flush = async () => {
    if (batch.length === 0) return;
    await container.storage.db
      .insertInto('images')
      .values(batch as never)
      .onConflict((oc) => oc.columns(['store_id', 'url']).doNothing())
      .execute();
    written += batch.length;
    batch = [];
  };
  for (const url of urls) {
    const vector = new Float32Array(info.dimensions);
    for (let d = 0; d < vector.length; d++) vector[d] = info.zeroPoint === 0 ? random() * random() : random() * 2 - 1;
    const { codes, scale } = quantize(normalise(vector), info.zeroPoint);
    batch.push({
      store_id: storeId,
      url,
      state: 'indexed',
      run_after: now,
      model: info.model,
      vector: codes,
      scale,
      updated_at: now,
    });
    if (batch.length === 500) await flush();
  }
  await flush();
  return written;
}

/** The request mix of scale.bench for a store of these rows (deterministic). */
export function requestMix(rows: CatalogRow[], codes: string[], storeUuid: string, collectionId: string) {
  const texts = [...new Set(buildQueries(rows, 200, 11).map((q) => q.text))];
  const random = prng(11);
  const code = () => codes[Math.floor(random() * codes.length)];
  const prefixes = [...new Set(texts.map((t) => t.split(' ')[0].slice(0, 3)).filter((p) => p.length === 3))];
  const store = `store_uuid=${storeUuid}`;
  return {
    search: (i: number) => ({
      path: `/v1/search?${store}&query=${encodeURIComponent(texts[i % texts.length])}&limit=20`,
    }),
    filteredFaceted: (i: number) => ({
      path: `/v1/search/query?${store}`,
      method: 'POST' as const,
      body: {
        query: texts[i % texts.length],
        filters: { Department: i % 2 ? ['Women'] : ['Men', 'Women'], 'Selling Price': { lte: 3000 } },
        facets: ['Colour', 'Category', 'Size'],
        limit: 20,
      },
    }),
    browse: (i: number) => ({
      path: `/v1/search/query?${store}`,
      method: 'POST' as const,
      body: { facets: ['Department', 'Colour', 'Category', 'Size'], offset: (i % 5) * 20, limit: 20 },
    }),
    suggest: (i: number) => ({
      path: `/v1/search/suggest?${store}&prefix=${encodeURIComponent(prefixes[i % prefixes.length])}`,
    }),
    statusDeep: (total: number) => (i: number) => ({
      path: `/v1/products/status?${store}&offset=${Math.floor((((i * 7919) % 1000) / 1000) * Math.max(0, total - 100))}&limit=100`,
    }),
    // Keyset: from a code anywhere in the catalog (the sample codes are spread over it), the next 100.
    statusKeyset: (i: number) => ({
      path: `/v1/products/status?${store}&after=${encodeURIComponent(codes[(i * 7919) % codes.length])}&limit=100`,
    }),
    collectionPage: (i: number) => ({
      path: `/v1/collection/${collectionId}/products?${store}&offset=${(i % 10) * 24}&limit=24`,
    }),
    complete: () => ({ path: `/v1/complementary?${store}&product_code=${encodeURIComponent(code())}&limit=12` }),
    similar: () => ({ path: `/v1/similar?${store}&product_code=${encodeURIComponent(code())}&limit=20` }),
  };
}
