/**
 * A store's own labels, learned from its own labelled photos: per field, the mean of the stored
 * vectors of the products carrying each label (a label with at least MIN_PER_LABEL photos), a photo
 * read as its nearest means through a softmax whose temperature is fitted on the labelled photos
 * themselves, each scored without its own contribution (leave one out). It speaks the store's words by
 * construction, including labels the built-in tagger does not know (`Sleep Bag`, `Divided`).
 */
import { fitTemperature, softmaxInPlace } from '../../vision/calibration.js';

export const MIN_PER_LABEL = 5;
/** Labelled photos a field needs before the store's own model is considered. */
export const MIN_LABELLED = 30;
/** Labelled photos the temperature and accuracy are judged on (a sample of a large store's). */
const MAX_PROBE = 2000;

export interface StorePrediction {
  label: string;
  confidence: number;
}

export class StoreLabelModel {
  private constructor(
    readonly labels: string[],
    private readonly sums: Float64Array[],
    private readonly counts: number[],
    private readonly temperature: number,
    /** Leave-one-out accuracy on the labelled photos. */
    readonly accuracy: number,
  ) {}

  /** The model of one field, or undefined when the store has too few labelled photos or labels. */
  static fit(samples: Array<{ vector: Float32Array; label: string }>): StoreLabelModel | undefined {
    const counts = new Map<string, number>();
    for (const s of samples) counts.set(s.label, (counts.get(s.label) ?? 0) + 1);
    const labels = [...counts]
      .filter(([, n]) => n >= MIN_PER_LABEL)
      .map(([label]) => label)
      .sort();
    if (labels.length < 2) return undefined;
    const index = new Map(labels.map((label, i) => [label, i]));
    const kept = samples.filter((s) => index.has(s.label));
    if (kept.length < MIN_LABELLED) return undefined;
    const d = kept[0].vector.length;
    const sums = labels.map(() => new Float64Array(d));
    const n = labels.map(() => 0);
    for (const s of kept) {
      const k = index.get(s.label)!;
      n[k]++;
      for (let j = 0; j < d; j++) sums[k][j] += s.vector[j];
    }
    // Leave-one-out similarities: each photo against every mean, its own mean without it.
    const step = Math.ceil(kept.length / MAX_PROBE);
    const probe = kept.filter((_, i) => i % step === 0);
    const similarities = probe.map((s) => similaritiesOf(s.vector, sums, n, index.get(s.label)!));
    const truths = probe.map((s) => index.get(s.label)!);
    const temperature = fitTemperature(similarities, truths, { low: 0.002, high: 1, steps: 40 });
    let right = 0;
    for (let i = 0; i < probe.length; i++) if (argmax(similarities[i]) === truths[i]) right++;
    return new StoreLabelModel(labels, sums, n, temperature, right / probe.length);
  }

  predict(vector: Float32Array): StorePrediction {
    const similarities = similaritiesOf(vector, this.sums, this.counts, -1);
    const p = softmaxInPlace(similarities, this.temperature);
    const best = argmax(p);
    return { label: this.labels[best], confidence: p[best] };
  }
}

/** Cosine of a vector with each label's mean (without the vector itself in the mean of `own`). */
function similaritiesOf(vector: Float32Array, sums: Float64Array[], counts: number[], own: number): Float64Array {
  const out = new Float64Array(sums.length);
  let vv = 0;
  for (const x of vector) vv += x * x;
  for (let k = 0; k < sums.length; k++) {
    const sum = sums[k];
    const self = k === own;
    if (self && counts[k] <= 1) {
      out[k] = -1;
      continue;
    }
    let dot = 0;
    let mm = 0;
    for (let j = 0; j < vector.length; j++) {
      const m = self ? sum[j] - vector[j] : sum[j];
      dot += m * vector[j];
      mm += m * m;
    }
    out[k] = mm > 0 && vv > 0 ? dot / Math.sqrt(mm * vv) : 0;
  }
  return out;
}

function argmax(values: Float64Array): number {
  let best = 0;
  for (let k = 1; k < values.length; k++) if (values[k] > values[best]) best = k;
  return best;
}
