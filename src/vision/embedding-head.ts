import fs from 'node:fs';
import { createHash } from 'node:crypto';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { COLOUR_BINS } from './colour-descriptor.js';

/** The fashion-tuned head shipped with Vitrine (training/train-visual-head.ts writes it). */
export const DEFAULT_HEAD_PATH = fileURLToPath(new URL('../../../models/fashion-head/head.json', import.meta.url));

/** head.json: what the weights file holds, in order, as little-endian float32. */
export interface HeadManifest {
  format: 'vitrine-visual-head/1';
  /** Length of the backbone's embedding the head reads. */
  backbone_dimensions: number;
  /** Dimensions of the shape part (the projection of the backbone's embedding). */
  shape_dimensions: number;
  /** Dimensions of the colour part (the projection of the foreground colour histogram). */
  colour_dimensions: number;
  colour_bins: number;
  /** Share of the colour part in a score: score = (1 − w) × shape similarity + w × colour similarity. */
  colour_weight: number;
  weights_file: string;
  /** Provenance only (data, command, cross-validated figures); not read by the service. */
  training?: Record<string, unknown>;
}

/**
 * A linear head on top of the frozen backbone: the backbone's unit embedding, centred and projected
 * (PCA whitening, then the directions that tell article types apart), and the foreground colour
 * histogram, centred and projected (the directions that tell catalogue colours apart). Each part is
 * made a unit vector and weighted by the square root of its share, so the dot product of two served
 * vectors is (1 − w) × shape similarity + w × colour similarity.
 */
export class EmbeddingHead {
  private constructor(
    readonly manifest: HeadManifest,
    /** `<folder name>@<sha256 of manifest and weights, 12 hex>`: part of the model identity. */
    readonly identity: string,
    private readonly shapeMean: Float32Array,
    private readonly shapeProjection: Float32Array,
    private readonly colourMean: Float32Array,
    private readonly colourProjection: Float32Array,
  ) {}

  get dimensions() {
    return this.manifest.shape_dimensions + this.manifest.colour_dimensions;
  }

  static load(manifestPath: string): EmbeddingHead {
    const { manifest, weightsBytes, identity } = readHead(manifestPath);
    const weights = new Float32Array(weightsBytes.length >> 2);
    for (let i = 0; i < weights.length; i++) weights[i] = weightsBytes.readFloatLE(i * 4);
    return EmbeddingHead.fromWeights(manifest, weights, identity, manifestPath);
  }

  /** A head's identity (`<folder name>@<sha256 of manifest and weights, 12 hex>`) without building it. */
  static identityOf(manifestPath: string): string {
    return readHead(manifestPath).identity;
  }

  /** A head from weights in memory (training and evaluation); `source` names it in errors. */
  static fromWeights(manifest: HeadManifest, weights: Float32Array, identity: string, source = 'head'): EmbeddingHead {
    if (manifest.format !== 'vitrine-visual-head/1')
      throw new Error(`${source}: unknown head format ${JSON.stringify(manifest.format)}`);
    if (manifest.colour_bins !== COLOUR_BINS)
      throw new Error(
        `${source}: the head expects ${manifest.colour_bins} colour bins, this build makes ${COLOUR_BINS}`,
      );
    if (!(manifest.colour_weight >= 0 && manifest.colour_weight <= 1))
      throw new Error(`${source}: colour_weight must be between 0 and 1`);
    const { backbone_dimensions: d, shape_dimensions: k, colour_bins: c, colour_dimensions: kc } = manifest;
    const expected = d + d * k + c + c * kc;
    if (weights.length !== expected)
      throw new Error(`${source}: the weights hold ${weights.length} numbers, the manifest needs ${expected}`);
    let at = 0;
    const take = (n: number) => weights.subarray(at, (at += n));
    return new EmbeddingHead(manifest, identity, take(d), take(d * k), take(c), take(c * kc));
  }

  /** The served vector of one image from its backbone embedding and foreground colours. */
  apply(backbone: Float32Array, colours: Float32Array): Float32Array {
    const { shape_dimensions: k, colour_dimensions: kc, colour_weight: w } = this.manifest;
    const out = new Float32Array(k + kc);
    project(backbone, this.shapeMean, this.shapeProjection, out.subarray(0, k), Math.sqrt(1 - w));
    project(colours, this.colourMean, this.colourProjection, out.subarray(k), Math.sqrt(w));
    return out;
  }
}

/** out = unit(Pᵀ(x − mean)) × weight, P row-major [x.length × out.length]. */
function project(x: Float32Array, mean: Float32Array, projection: Float32Array, out: Float32Array, weight: number) {
  const k = out.length;
  if (k === 0) return;
  const acc = new Float64Array(k);
  for (let d = 0; d < x.length; d++) {
    const v = x[d] - mean[d];
    if (v === 0) continue;
    const row = d * k;
    for (let j = 0; j < k; j++) acc[j] += v * projection[row + j];
  }
  let norm = 0;
  for (const v of acc) norm += v * v;
  const scale = weight / (Math.sqrt(norm) || 1);
  for (let j = 0; j < k; j++) out[j] = acc[j] * scale;
}

/** A head's files as stored, and the identity they give it. */
function readHead(manifestPath: string) {
  const manifestBytes = fs.readFileSync(manifestPath);
  const manifest = JSON.parse(manifestBytes.toString('utf8')) as HeadManifest;
  const weightsBytes = fs.readFileSync(path.join(path.dirname(manifestPath), manifest.weights_file));
  const digest = createHash('sha256').update(manifestBytes).update(weightsBytes).digest('hex').slice(0, 12);
  const name = path.basename(path.dirname(path.resolve(manifestPath)));
  return { manifest, weightsBytes, identity: `${name}@${digest}` };
}
