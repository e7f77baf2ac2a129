import fs from 'node:fs';
import ort from 'onnxruntime-node';
import { decodeToRgb } from './image-preparation.js';
import { foregroundColours } from './colour-descriptor.js';
import { EmbeddingHead } from './embedding-head.js';
import { modelIdentityOf } from './model-identity.js';
import { normalise } from './quantize.js';

/** Turns images into unit vectors whose dot product is their visual similarity. */
export interface Embedder {
  /** Identity stored with every vector: a different model (or file) means re-embedding. */
  readonly model: string;
  readonly dimensions: number;
  /** True when every component is ≥ 0 (ReLU features): the index then quantizes with zero point 0. */
  readonly nonNegative: boolean;
  /** One result per image: a unit vector, or the error that image raised (others still succeed). */
  embed(images: Uint8Array[]): Promise<Array<Float32Array | Error>>;
  close(): Promise<void>;
}

export { DEFAULT_MODEL_PATH } from './model-identity.js';

const INPUT_SIZE = 224;
const MEAN = [0.485, 0.456, 0.406];
const STD = [0.229, 0.224, 0.225];

/** What the backbone sees in one image: its unit embedding and the foreground colours (training reads these). */
export interface ImageFeatures {
  backbone: Float32Array;
  colours: Float32Array;
}

/**
 * An ONNX image model with an `input` [N,3,224,224] (ImageNet normalisation) and an `embedding`
 * output [N,D], run by onnxruntime on the CPU. Meant to run inside a worker thread: inference is
 * synchronous native work that would otherwise stall the event loop.
 */
export class OnnxEmbedder implements Embedder {
  private constructor(
    private readonly session: ort.InferenceSession,
    readonly model: string,
    readonly dimensions: number,
    readonly nonNegative: boolean,
    private readonly backboneDimensions: number,
    private readonly head: EmbeddingHead | undefined,
  ) {}

  /**
   * Loads the backbone and, when `headPath` is given, the head on top of it: the model identity then
   * names both, so changing either re-embeds the catalogue.
   */
  static async load(modelPath: string, threads = 1, headPath?: string): Promise<OnnxEmbedder> {
    const bytes = fs.readFileSync(modelPath);
    const head = headPath ? EmbeddingHead.load(headPath) : undefined;
    const session = await ort.InferenceSession.create(bytes, {
      intraOpNumThreads: threads,
      interOpNumThreads: 1,
      graphOptimizationLevel: 'all',
    });
    if (!session.inputNames.includes('input') || !session.outputNames.includes('embedding')) {
      throw new Error(`${modelPath} must have an input named "input" and an output named "embedding"`);
    }
    const probe = await session.run(
      {
        input: new ort.Tensor('float32', new Float32Array(3 * INPUT_SIZE * INPUT_SIZE), [1, 3, INPUT_SIZE, INPUT_SIZE]),
      },
      ['embedding'],
    );
    const backboneDimensions = probe.embedding.dims[1];
    if (head && head.manifest.backbone_dimensions !== backboneDimensions)
      throw new Error(
        `${headPath} reads ${head.manifest.backbone_dimensions}-dimension embeddings; ${modelPath} makes ${backboneDimensions}`,
      );
    const nonNegative = !head && (probe.embedding.data as Float32Array).every((x) => x >= 0);
    const model = modelIdentityOf(modelPath, bytes, head?.identity);
    return new OnnxEmbedder(
      session,
      model,
      head?.dimensions ?? backboneDimensions,
      nonNegative,
      backboneDimensions,
      head,
    );
  }

  /** One result per image: its served unit vector (the head's output when there is a head), or the error it raised. */
  async embed(images: Uint8Array[]): Promise<Array<Float32Array | Error>> {
    const features = await this.features(images);
    return features.map((f) => {
      if (f instanceof Error) return f;
      return this.head ? this.head.apply(f.backbone, f.colours) : f.backbone;
    });
  }

  /** The backbone's unit embedding and the foreground colours of each image, before any head. */
  async features(images: Uint8Array[]): Promise<Array<ImageFeatures | Error>> {
    const results: Array<ImageFeatures | Error> = new Array(images.length);
    const decoded = await Promise.all(
      images.map((image) => decodeToRgb(image, INPUT_SIZE).catch((error: Error) => error)),
    );
    const ok = decoded
      .map((d, i) => [d, i] as const)
      .filter((entry): entry is readonly [Buffer, number] => !(entry[0] instanceof Error));
    decoded.forEach((d, i) => {
      if (d instanceof Error) results[i] = d;
    });
    if (ok.length === 0) return results;
    const plane = INPUT_SIZE * INPUT_SIZE;
    const input = new Float32Array(ok.length * 3 * plane);
    ok.forEach(([rgb], k) => {
      const base = k * 3 * plane;
      for (let p = 0; p < plane; p++) {
        for (let c = 0; c < 3; c++) input[base + c * plane + p] = (rgb[p * 3 + c] / 255 - MEAN[c]) / STD[c];
      }
    });
    const output = await this.session.run(
      { input: new ort.Tensor('float32', input, [ok.length, 3, INPUT_SIZE, INPUT_SIZE]) },
      ['embedding'],
    );
    const data = output.embedding.data as Float32Array;
    const d = this.backboneDimensions;
    ok.forEach(([rgb, i], k) => {
      results[i] = {
        backbone: normalise(data.slice(k * d, (k + 1) * d)),
        colours: foregroundColours(rgb, INPUT_SIZE, INPUT_SIZE),
      };
    });
    return results;
  }

  async close() {
    await this.session.release();
  }
}
