import fs from 'node:fs';
import os from 'node:os';
import ort from 'onnxruntime-node';

/** The prebuilt one-node graph (scripts/build-scoring-graph.mjs): dimensions and zero points are inputs. */
export const SCORING_GRAPH_PATH = new URL('../../../models/scoring/matmul-integer.onnx', import.meta.url);

/**
 * Matrices from this many columns are scored on every core (up to 4). Below it one thread answers
 * sooner than a pool wakes; above it the scan is long enough to split: at 330,000 photos of 164
 * dimensions, `/v1/similar` took 10.0 ms at the median instead of 12.7 with two cores.
 */
export const WIDE_SCAN_FROM = 65_536;

/**
 * Scores a quantized query against every column of a VectorMatrix with one MatMulInteger call:
 * onnxruntime's int8 GEMM kernels do in ~10 ms for 44k × 1280 what a JavaScript loop does in ~60 ms.
 */
export class MatrixScorer {
  readonly #zero: ort.Tensor;
  /**
   * The same graph on several threads, which do not spin while idle (they would hold the cores);
   * created with the first large matrix, so a thread that never scores one has no pool.
   */
  #wide: Promise<ort.InferenceSession> | undefined;
  readonly #cores = Math.min(4, os.availableParallelism());

  private constructor(
    private readonly graph: Buffer,
    private readonly narrow: ort.InferenceSession,
    private readonly threads: number,
    private readonly dimensions: number,
    zeroPoint: number,
  ) {
    this.#zero = new ort.Tensor('uint8', Uint8Array.of(zeroPoint), []);
  }

  static async create(dimensions: number, zeroPoint: number, threads = 1): Promise<MatrixScorer> {
    const graph = fs.readFileSync(SCORING_GRAPH_PATH);
    const narrow = await ort.InferenceSession.create(graph, { intraOpNumThreads: threads, interOpNumThreads: 1 });
    return new MatrixScorer(graph, narrow, threads, dimensions, zeroPoint);
  }

  /** Integer dot products of `query` with each of the `columns` columns of a dimension-major matrix. */
  async score(query: Uint8Array, matrix: Uint8Array, columns: number): Promise<Int32Array> {
    const wide = columns >= WIDE_SCAN_FROM && this.#cores > this.threads;
    const session = wide ? await this.#wideSession() : this.narrow;
    const output = await session.run({
      query: new ort.Tensor('uint8', query, [1, this.dimensions]),
      matrix: new ort.Tensor('uint8', matrix, [this.dimensions, columns]),
      query_zero: this.#zero,
      matrix_zero: this.#zero,
    });
    return output.scores.data as Int32Array;
  }

  #wideSession(): Promise<ort.InferenceSession> {
    return (this.#wide ??= ort.InferenceSession.create(this.graph, {
      intraOpNumThreads: this.#cores,
      interOpNumThreads: 1,
      extra: { session: { intra_op: { allow_spinning: '0' } } },
    }));
  }

  async close() {
    await this.narrow.release();
    await (await this.#wide)?.release();
  }
}
