import { parentPort, workerData } from 'node:worker_threads';
import sharp from 'sharp';
import { normalise, OnnxEmbedder } from './embedder.js';
import { quantize } from './quantize.js';
import { ImageRejectedError } from './image-rejection.js';
import { MatrixScorer } from './scorer.js';
import { VectorMatrix } from './vector-matrix.js';
import type { ThreadReply, ThreadRequest, VisionThreadOptions } from './vision-protocol.js';

/**
 * The worker thread that does all image work: decoding (sharp), embedding and scoring
 * (onnxruntime, whose calls are synchronous native work). The HTTP event loop only posts messages.
 * The vector matrices of each index live here, next to the scorer that reads them.
 */
const options = workerData as VisionThreadOptions;
// Every image is decoded once: libvips' operation cache would only hold memory.
sharp.cache(false);
const port = parentPort!;
const embedder = await OnnxEmbedder.load(options.modelPath, options.threads, options.headPath);
const zeroPoint = embedder.nonNegative ? 0 : 128;
const scorer = await MatrixScorer.create(embedder.dimensions, zeroPoint, options.threads);
const matrices = new Map<string, VectorMatrix>();

function matrixFor(key: string) {
  let matrix = matrices.get(key);
  if (!matrix) matrices.set(key, (matrix = new VectorMatrix(embedder.dimensions, zeroPoint)));
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
      const results = await embedder.embed(request.images);
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
      const d = embedder.dimensions;
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
      await embedder.close();
      await scorer.close();
      port.close();
      return undefined;
    case 'score': {
      const { matrix, columns } = matrixToScan(request.key, request.columns);
      const scores =
        columns === 0 ? new Int32Array(0) : await scorer.score(request.query, matrix.data, matrix.capacity);
      return { id: request.id, scores: scores.slice(0, columns) };
    }
    case 'scoreLike': {
      // Stored vectors are the query (no decode, no embedding): the normalised mean of the product's
      // images, which cross-validation preferred to the best match of any one (BENCHMARKS.md).
      const { matrix, columns } = matrixToScan(request.key, request.columns);
      const mean = new Float32Array(embedder.dimensions);
      request.queries.forEach((column, q) => {
        const codes = matrix.column(column);
        for (let d = 0; d < mean.length; d++) mean[d] += (codes[d] - zeroPoint) * request.scales[q];
      });
      const query = quantize(normalise(mean), zeroPoint);
      const scores = columns === 0 ? new Int32Array(0) : await scorer.score(query.codes, matrix.data, matrix.capacity);
      return { id: request.id, scores: scores.slice(0, columns), queryScale: query.scale };
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
port.postMessage({ ready: { model: embedder.model, dimensions: embedder.dimensions, zeroPoint } });
