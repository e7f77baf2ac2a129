import { fitTemperature, softmaxInPlace } from '../src/vision/calibration.js';

/**
 * The tagger's classifiers: one multinomial logistic regression per field over the served image
 * vectors (what the images table stores), fitted by full-batch Adam with an L2 penalty (no
 * randomness: the same data gives the same weights), then calibrated by temperature scaling on
 * out-of-fold predictions, so that a confidence of 0.9 is right about nine times in ten.
 */
export interface FieldModel {
  classes: string[];
  /** Row-major classes × (dimensions + 1): the last column is the bias. */
  weights: Float32Array;
  temperature: number;
}

export interface FitOptions {
  iterations: number;
  learningRate: number;
  l2: number;
  /** Classes weigh inversely to their size (a rare class is not drowned by the common ones). */
  balanced: boolean;
}

export const DEFAULT_TAGGER_FIT: FitOptions = { iterations: 250, learningRate: 0.05, l2: 1e-4, balanced: false };

/** Logits of one vector (dimensions long) under a model without temperature. */
export function logitsOf(weights: Float32Array, classes: number, x: Float32Array, out = new Float64Array(classes)) {
  const d = x.length;
  for (let k = 0; k < classes; k++) {
    let sum = weights[k * (d + 1) + d];
    const base = k * (d + 1);
    for (let j = 0; j < d; j++) sum += weights[base + j] * x[j];
    out[k] = sum;
  }
  return out;
}

/** Fits one field's weights on vectors with class indexes (temperature 1). */
export function fitSoftmax(
  vectors: Float32Array[],
  labels: number[],
  classes: number,
  options: FitOptions = DEFAULT_TAGGER_FIT,
): Float32Array {
  const n = vectors.length;
  const d = vectors[0].length;
  const size = classes * (d + 1);
  const w = new Float64Array(size);
  const m = new Float64Array(size);
  const v = new Float64Array(size);
  const grad = new Float64Array(size);
  const p = new Float64Array(classes);
  const beta1 = 0.9;
  const beta2 = 0.999;
  const counts = new Float64Array(classes);
  for (const label of labels) counts[label]++;
  const weightOf = Array.from(counts, (c) => (!options.balanced ? 1 : c > 0 ? n / (classes * c) : 0));
  for (let step = 1; step <= options.iterations; step++) {
    grad.fill(0);
    for (let i = 0; i < n; i++) {
      const x = vectors[i];
      for (let k = 0; k < classes; k++) {
        let sum = w[k * (d + 1) + d];
        const base = k * (d + 1);
        for (let j = 0; j < d; j++) sum += w[base + j] * x[j];
        p[k] = sum;
      }
      softmaxInPlace(p);
      const sampleWeight = weightOf[labels[i]] / n;
      for (let k = 0; k < classes; k++) {
        const g = (p[k] - (k === labels[i] ? 1 : 0)) * sampleWeight;
        if (g === 0) continue;
        const base = k * (d + 1);
        for (let j = 0; j < d; j++) grad[base + j] += g * x[j];
        grad[base + d] += g;
      }
    }
    for (let q = 0; q < size; q++) {
      const g = grad[q] + options.l2 * w[q];
      m[q] = beta1 * m[q] + (1 - beta1) * g;
      v[q] = beta2 * v[q] + (1 - beta2) * g * g;
      const mHat = m[q] / (1 - beta1 ** step);
      const vHat = v[q] / (1 - beta2 ** step);
      w[q] -= (options.learningRate * mHat) / (Math.sqrt(vHat) + 1e-8);
    }
  }
  return Float32Array.from(w);
}

/** A deterministic fold number per item (stratified by label: each fold holds a share of each class). */
export function foldsOf(labels: number[], folds: number): number[] {
  const seen = new Map<number, number>();
  return labels.map((label) => {
    const index = seen.get(label) ?? 0;
    seen.set(label, index + 1);
    return index % folds;
  });
}

export interface Prediction {
  truth: number;
  predicted: number;
  confidence: number;
}

/**
 * K-fold: each item predicted by weights fitted without it; the temperature is then fitted on all
 * those out-of-fold logits, and the predictions read with it.
 */
export function crossValidateField(
  vectors: Float32Array[],
  labels: number[],
  classes: number,
  folds: number,
  options: FitOptions = DEFAULT_TAGGER_FIT,
  onFold?: (fold: number) => void,
): { predictions: Prediction[]; temperature: number } {
  const fold = foldsOf(labels, folds);
  const logits: Float64Array[] = new Array(vectors.length);
  for (let f = 0; f < folds; f++) {
    const train = vectors.map((_, i) => i).filter((i) => fold[i] !== f);
    const weights = fitSoftmax(
      train.map((i) => vectors[i]),
      train.map((i) => labels[i]),
      classes,
      options,
    );
    for (let i = 0; i < vectors.length; i++) if (fold[i] === f) logits[i] = logitsOf(weights, classes, vectors[i]);
    onFold?.(f);
  }
  const temperature = fitTemperature(logits, labels, { low: 0.05, high: 10, steps: 60 });
  const predictions = logits.map((l, i) => {
    const p = softmaxInPlace(Float64Array.from(l), temperature);
    let best = 0;
    for (let k = 1; k < classes; k++) if (p[k] > p[best]) best = k;
    return { truth: labels[i], predicted: best, confidence: p[best] };
  });
  return { predictions, temperature };
}

/** Precision and coverage of the predictions at or above a confidence threshold. */
export function atThreshold(predictions: Prediction[], threshold: number): { precision: number; coverage: number } {
  const kept = predictions.filter((p) => p.confidence >= threshold);
  const right = kept.filter((p) => p.predicted === p.truth).length;
  return {
    precision: kept.length > 0 ? right / kept.length : 1,
    coverage: kept.length / Math.max(1, predictions.length),
  };
}

/** Expected calibration error over ten equal-width confidence bins. */
export function calibrationError(predictions: Prediction[], bins = 10): number {
  let error = 0;
  for (let b = 0; b < bins; b++) {
    const inBin = predictions.filter((p) => p.confidence > b / bins && p.confidence <= (b + 1) / bins);
    if (inBin.length === 0) continue;
    const accuracy = inBin.filter((p) => p.predicted === p.truth).length / inBin.length;
    const confidence = inBin.reduce((sum, p) => sum + p.confidence, 0) / inBin.length;
    error += (inBin.length / predictions.length) * Math.abs(accuracy - confidence);
  }
  return error;
}

/** The lowest threshold whose precision reaches `target` (null when none does). */
export function thresholdFor(predictions: Prediction[], target: number): number | null {
  const sorted = [...new Set(predictions.map((p) => Math.round(p.confidence * 100) / 100))].sort((a, b) => a - b);
  for (const threshold of sorted) if (atThreshold(predictions, threshold).precision >= target) return threshold;
  return null;
}

/** The most frequent mistakes (truth → predicted, with counts). */
export function topConfusions(predictions: Prediction[], classes: string[], top: number): string[] {
  const counts = new Map<string, number>();
  for (const p of predictions)
    if (p.predicted !== p.truth) {
      const key = `${classes[p.truth]} → ${classes[p.predicted]}`;
      counts.set(key, (counts.get(key) ?? 0) + 1);
    }
  return [...counts]
    .sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))
    .slice(0, top)
    .map(([key, n]) => `${key} (${n})`);
}
