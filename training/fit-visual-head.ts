import { EigenvalueDecomposition, Matrix } from 'ml-matrix';
import { COLOUR_BINS } from '../src/vision/colour-descriptor.js';
import type { HeadManifest } from '../src/vision/embedding-head.js';

/** Labelled images as the backbone sees them (OnnxEmbedder.features). */
export interface TrainingSet {
  backbone: Float32Array[];
  colours: Float32Array[];
  /** Article type (or any shape class); every image has one. */
  shapeLabel: string[];
  /** Catalogue colour; null where the image has none (greyscale sets), left out of the colour fit. */
  colourLabel: Array<string | null>;
}

export interface FitOptions {
  /** Principal directions kept and whitened before the discriminant step. */
  pcaDimensions: number;
  /** Output dimensions of the shape part. */
  shapeDimensions: number;
  /** Whitening floor as a share of the largest variance (keeps tiny directions from exploding). */
  whiteningFloor: number;
  /** Weight given to directions that separate no class, so that unseen kinds of product keep some geometry. */
  residualWeight: number;
  /** Shrinkage of the colour within-class scatter toward its mean variance. */
  colourShrinkage: number;
  colourWeight: number;
}

export const DEFAULT_FIT: FitOptions = {
  pcaDimensions: 512,
  shapeDimensions: 128,
  whiteningFloor: 1e-3,
  residualWeight: 0.05,
  colourShrinkage: 0.1,
  colourWeight: 0.2,
};

export interface FittedHead {
  manifest: Omit<HeadManifest, 'weights_file' | 'training'>;
  /** shape mean, shape projection, colour mean, colour projection (EmbeddingHead's layout). */
  weights: Float32Array;
}

function meanOf(rows: Float32Array[], dimensions: number) {
  const mean = new Float64Array(dimensions);
  for (const row of rows) for (let d = 0; d < dimensions; d++) mean[d] += row[d];
  return mean.map((x) => x / rows.length);
}

function centred(rows: Float32Array[], mean: Float64Array) {
  return new Matrix(rows.map((row) => Array.from(row, (x, d) => x - mean[d])));
}

/** Eigenvectors of a symmetric matrix, largest eigenvalue first. */
function eigenDescending(matrix: Matrix) {
  const e = new EigenvalueDecomposition(matrix, { assumeSymmetric: true });
  const values = e.realEigenvalues;
  const order = [...values.keys()].sort((a, b) => values[b] - values[a]);
  return { values: order.map((i) => values[i]), vectors: e.eigenvectorMatrix.subMatrixColumn(order) };
}

/** Between-class scatter of rows (n × p) grouped by label, each class weighted by its share. */
function betweenClassScatter(rows: Matrix, labels: string[]) {
  const p = rows.columns;
  const groups = new Map<string, number[]>();
  labels.forEach((label, i) => {
    const group = groups.get(label) ?? [];
    group.push(i);
    groups.set(label, group);
  });
  const total = rows.mean('column');
  const scatter = new Matrix(p, p);
  for (const members of groups.values()) {
    const m = new Float64Array(p);
    for (const i of members) for (let j = 0; j < p; j++) m[j] += rows.get(i, j) / members.length;
    for (let j = 0; j < p; j++) m[j] -= total[j];
    const share = members.length / labels.length;
    for (let a = 0; a < p; a++) for (let b = 0; b < p; b++) scatter.set(a, b, scatter.get(a, b) + share * m[a] * m[b]);
  }
  return { scatter, groups };
}

/**
 * Shape part: PCA whitening to `pcaDimensions`, then the directions of largest between-type scatter
 * (in whitened space this is LDA), each scaled by √(its discriminant strength + residualWeight).
 */
function fitShape(set: TrainingSet, options: FitOptions) {
  const d = set.backbone[0].length;
  const mean = meanOf(set.backbone, d);
  const x = centred(set.backbone, mean);
  const pca = eigenDescending(x.transpose().mmul(x).div(x.rows));
  const p = Math.min(options.pcaDimensions, d);
  const floor = options.whiteningFloor * pca.values[0];
  const whitening = new Matrix(d, p);
  for (let j = 0; j < p; j++) {
    const s = 1 / Math.sqrt(Math.max(pca.values[j], 0) + floor);
    for (let i = 0; i < d; i++) whitening.set(i, j, pca.vectors.get(i, j) * s);
  }
  const { scatter } = betweenClassScatter(x.mmul(whitening), set.shapeLabel);
  const lda = eigenDescending(scatter);
  const k = Math.min(options.shapeDimensions, p);
  const rotation = new Matrix(p, k);
  for (let c = 0; c < k; c++) {
    const s = Math.sqrt(Math.max(lda.values[c], 0) + options.residualWeight);
    for (let j = 0; j < p; j++) rotation.set(j, c, lda.vectors.get(j, c) * s);
  }
  return { mean, projection: whitening.mmul(rotation) };
}

/** Colour part: LDA of the foreground histograms on the catalogue colour, with a shrunk within-class scatter. */
function fitColour(set: TrainingSet, options: FitOptions) {
  const rows: Float32Array[] = [];
  const labels: string[] = [];
  set.colours.forEach((c, i) => {
    const label = set.colourLabel[i];
    if (label !== null) {
      rows.push(c);
      labels.push(label);
    }
  });
  const c = COLOUR_BINS;
  const mean = meanOf(rows, c);
  const x = centred(rows, mean);
  const { scatter: between, groups } = betweenClassScatter(x, labels);
  const within = new Matrix(c, c);
  for (const members of groups.values()) {
    const m = new Float64Array(c);
    for (const i of members) for (let j = 0; j < c; j++) m[j] += x.get(i, j) / members.length;
    for (const i of members)
      for (let a = 0; a < c; a++) {
        const da = x.get(i, a) - m[a];
        for (let b = 0; b < c; b++) within.set(a, b, within.get(a, b) + (da * (x.get(i, b) - m[b])) / rows.length);
      }
  }
  const trace = within.diag().reduce((s, v) => s + v, 0);
  for (let a = 0; a < c; a++) within.set(a, a, within.get(a, a) + (options.colourShrinkage * trace) / c);
  const w = eigenDescending(within);
  const whitening = w.vectors.mmul(Matrix.diag(w.values.map((v) => 1 / Math.sqrt(Math.max(v, 1e-12)))));
  const lda = eigenDescending(whitening.transpose().mmul(between).mmul(whitening));
  const k = Math.min(groups.size - 1, c - 1);
  const rotation = new Matrix(c, k);
  for (let j = 0; j < k; j++) {
    const s = Math.sqrt(Math.max(lda.values[j], 0));
    for (let i = 0; i < c; i++) rotation.set(i, j, lda.vectors.get(i, j) * s);
  }
  return { mean, projection: whitening.mmul(rotation) };
}

/** Fits both parts of the head on a labelled set; deterministic (no randomness at all). */
export function fitHead(set: TrainingSet, options: FitOptions = DEFAULT_FIT): FittedHead {
  const shape = fitShape(set, options);
  const colour = fitColour(set, options);
  const d = set.backbone[0].length;
  const weights = new Float32Array([
    ...shape.mean,
    ...shape.projection.to1DArray(),
    ...colour.mean,
    ...colour.projection.to1DArray(),
  ]);
  return {
    manifest: {
      format: 'vitrine-visual-head/1',
      backbone_dimensions: d,
      shape_dimensions: shape.projection.columns,
      colour_dimensions: colour.projection.columns,
      colour_bins: COLOUR_BINS,
      colour_weight: options.colourWeight,
    },
    weights,
  };
}
