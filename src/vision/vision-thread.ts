import { parentPort, workerData } from 'node:worker_threads';
import type { OnnxEmbedder } from './embedder.js';
import { EmbeddingHead } from './embedding-head.js';
import { ImageRejectedError } from './image-rejection.js';
import { modelIdentity } from './model-identity.js';
import { normalise, quantize } from './quantize.js';
import type { MatrixScorer } from './scorer.js';
import { scanColumns, VectorMatrix } from './vector-matrix.js';
import type { ModelInfo, ThreadReply, ThreadRequest, VisionThreadOptions } from './vision-protocol.js';

/**
 * The worker thread that does all image work: decoding (sharp), embedding and scoring
 * (onnxruntime, whose calls are synchronous native work). The HTTP event loop only posts messages.
 * The vector matrices of each index live here, next to the scorer that reads them.
 */
const options = workerData as VisionThreadOptions;
const port = parentPort!;

/**
 * Scans of fewer columns (a store's photos) are a JavaScript loop (scanColumns, about a millisecond at
 * 2,000); larger ones one onnxruntime call. A thread that only scans small stores (a thousand stores'
 * `/v1/similar`) then loads neither onnxruntime nor the model nor sharp: about 65 MB a process less.
 */
const SCAN_IN_ORT_FROM = 2048;

/** A load that failed is tried again by the next call (the request that met it fails). */
const forget = (clear: () => void) => (error: unknown) => {
  clear();
  throw error;
};
// The model and sharp load with the first image to embed (the event loop has loaded sharp before it
// asks: lazy-sharp.ts); onnxruntime's scorer with the first large scan.
let embedderLoad: Promise<OnnxEmbedder> | undefined;
const embedder = () =>
  (embedderLoad ??= (async () => {
    // Every image is decoded once: libvips' operation cache would only hold memory.
    (await import('sharp')).default.cache(false);
    const { OnnxEmbedder } = await import('./embedder.js');
    return OnnxEmbedder.load(options.modelPath, options.threads, options.headPath);
  })().catch(forget(() => (embedderLoad = undefined))));
let scorerLoad: Promise<MatrixScorer> | undefined;
const scorer = () =>
  (scorerLoad ??= import('./scorer.js')
    .then(({ MatrixScorer }) => MatrixScorer.create(info.dimensions, info.zeroPoint, options.threads))
    .catch(forget(() => (scorerLoad = undefined))));

/**
 * What the vectors are: with a head, its manifest says (no model loaded; the backbone's size is checked
 * when the model first loads); without one, the model's own output says, so it loads now.
 */
async function describe(): Promise<ModelInfo> {
  if (options.headPath)
    return {
      model: modelIdentity(options.modelPath, options.headPath),
      dimensions: EmbeddingHead.load(options.headPath).dimensions,
      zeroPoint: 128,
    };
  const loaded = await embedder();
  return { model: loaded.model, dimensions: loaded.dimensions, zeroPoint: loaded.nonNegative ? 0 : 128 };
}
const info = await describe();
const { zeroPoint } = info;
const matrices = new Map<string, VectorMatrix>();

async function scan(query: Uint8Array, matrix: VectorMatrix, columns: number): Promise<Int32Array> {
  if (columns === 0) return new Int32Array(0);
  if (columns < SCAN_IN_ORT_FROM) return scanColumns(query, matrix, columns);
  return (await (await scorer()).score(query, matrix.data, matrix.capacity)).slice(0, columns);
}

function matrixFor(key: string) {
  let matrix = matrices.get(key);
  if (!matrix) matrices.set(key, (matrix = new VectorMatrix(info.dimensions, zeroPoint)));
  return matrix;
}

/** A matrix about to be scanned over the `used` columns its index numbered (fitted first), and how many it holds. */
function matrixToScan(key: string, used: number) {
  const matrix = matrixFor(key);
  matrix.fit(used);
  return { matrix, columns: Math.min(used, matrix.capacity) };
}

async function handle(request: ThreadRequest): Promise<ThreadReply | undefined> {
  switch (request.op) {
    case 'embed': {
      const results = await (await embedder()).embed(request.images);
      return {
        id: request.id,
        results: results.map((r) =>
          r instanceof Error
            ? { error: { reason: r instanceof ImageRejectedError ? r.reason : 'undecodable', message: r.message } }
            : { vector: r },
        ),
      };
    }
    case 'set': {
      const matrix = matrixFor(request.key);
      const d = info.dimensions;
      request.columns.forEach((column, i) => matrix.set(column, request.codes.subarray(i * d, (i + 1) * d)));
      return undefined;
    }
    case 'clear': {
      const matrix = matrices.get(request.key);
      for (const column of request.columns) matrix?.clear(column);
      return undefined;
    }
    case 'drop':
      matrices.delete(request.key);
      return undefined;
    case 'close':
      // Sessions are released before the thread ends: terminating a thread inside onnxruntime aborts the process.
      matrices.clear();
      await embedderLoad?.then((loaded) => loaded.close()).catch(() => {});
      await scorerLoad?.then((loaded) => loaded.close()).catch(() => {});
      port.close();
      return undefined;
    case 'score': {
      const { matrix, columns } = matrixToScan(request.key, request.columns);
      return { id: request.id, scores: await scan(request.query, matrix, columns) };
    }
    case 'scoreLike': {
      // Stored vectors are the query (no decode, no embedding): the normalised mean of the product's
      // images, which cross-validation preferred to the best match of any one (BENCHMARKS.md).
      const { matrix, columns } = matrixToScan(request.key, request.columns);
      const mean = new Float32Array(info.dimensions);
      request.queries.forEach((column, q) => {
        const codes = matrix.column(column);
        for (let d = 0; d < mean.length; d++) mean[d] += (codes[d] - zeroPoint) * request.scales[q];
      });
      const query = quantize(normalise(mean), zeroPoint);
      return { id: request.id, scores: await scan(query.codes, matrix, columns), queryScale: query.scale };
    }
  }
}

// Requests are handled one at a time, in order: a `set` posted before a `score` is always seen by it.
let queue = Promise.resolve();
port.on('message', (request: ThreadRequest) => {
  queue = queue.then(async () => {
    try {
      const reply = await handle(request);
      if (reply) {
        port.postMessage(reply, 'scores' in reply ? [reply.scores.buffer as ArrayBuffer] : []);
      }
    } catch (error) {
      if ('id' in request) port.postMessage({ id: request.id, failure: (error as Error).message });
    }
  });
});
port.postMessage({ ready: info });
