import fs from 'node:fs';
import ort from 'onnxruntime-node';

/** The prebuilt one-node graph (scripts/build-scoring-graph.mjs): dimensions and zero points are inputs. */
export const SCORING_GRAPH_PATH = new URL('../../../models/scoring/matmul-integer.onnx', import.meta.url);

/**
 * Scores a quantized query against every column of a VectorMatrix with one MatMulInteger call:
 * onnxruntime's int8 GEMM kernels do in ~10 ms for 44k × 1280 what a JavaScript loop does in ~60 ms.
 */
export class MatrixScorer {
  readonly #zero: ort.Tensor;

  private constructor(
    private readonly session: ort.InferenceSession,
    private readonly dimensions: number,
    zeroPoint: number,
  ) {
    this.#zero = new ort.Tensor('uint8', Uint8Array.of(zeroPoint), []);
  }

  static async create(dimensions: number, zeroPoint: number, threads = 1): Promise<MatrixScorer> {
    const session = await ort.InferenceSession.create(fs.readFileSync(SCORING_GRAPH_PATH), {
      intraOpNumThreads: threads,
      interOpNumThreads: 1,
    });
    return new MatrixScorer(session, dimensions, zeroPoint);
  }

  /** Integer dot products of `query` with each of the `columns` columns of a dimension-major matrix. */
  async score(query: Uint8Array, matrix: Uint8Array, columns: number): Promise<Int32Array> {
    const output = await this.session.run({
      query: new ort.Tensor('uint8', query, [1, this.dimensions]),
      matrix: new ort.Tensor('uint8', matrix, [this.dimensions, columns]),
      query_zero: this.#zero,
      matrix_zero: this.#zero,
    });
    return output.scores.data as Int32Array;
  }

  async close() {
    await this.session.release();
  }
}
