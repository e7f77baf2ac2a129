import type { ImageFeatures } from '../src/vision/embedder.js';
import { EmbeddingHead } from '../src/vision/embedding-head.js';
import { fitHead, type FitOptions, type TrainingSet } from './fit-visual-head.js';

export interface LabelledPhoto {
  features: ImageFeatures;
  type: string;
  colour: string;
}

/** Fold of each photo: stratified by type, shuffled with a fixed seed (so every run splits alike). */
export function stratifiedFolds(types: string[], folds: number, seed = 42): Int32Array {
  let state = seed;
  const random = () => (state = (state * 1103515245 + 12345) & 0x7fffffff) / 0x7fffffff;
  const byType = new Map<string, number[]>();
  types.forEach((type, i) => byType.set(type, [...(byType.get(type) ?? []), i]));
  const fold = new Int32Array(types.length);
  let offset = 0;
  for (const [, members] of [...byType].sort(([a], [b]) => (a < b ? -1 : 1))) {
    for (let j = members.length - 1; j > 0; j--) {
      const r = Math.floor(random() * (j + 1));
      [members[j], members[r]] = [members[r], members[j]];
    }
    members.forEach((member, j) => (fold[member] = (j + offset) % folds));
    offset += members.length;
  }
  return fold;
}

/**
 * /similar for products of several photos: held-out photos of the same type and colour are paired
 * into two-photo products, each pair queries the rest of the held-out fold three ways (the first
 * photo alone, the best match of either, the normalised mean of both); precision@10 of each.
 */
export function pairedQueries(
  vectors: Float32Array[],
  photos: Array<{ type: string; colour: string }>,
  test: number[],
) {
  const groups = new Map<string, number[]>();
  for (const i of test) {
    const key = `${photos[i].type}|${photos[i].colour}`;
    groups.set(key, [...(groups.get(key) ?? []), i]);
  }
  const sums = { first: [0, 0], best: [0, 0], mean: [0, 0] };
  let pairs = 0;
  const dot = (a: Float32Array, b: Float32Array) => a.reduce((s, x, d) => s + x * b[d], 0);
  for (const members of groups.values())
    for (let j = 0; j + 1 < members.length; j += 2) {
      const [a, b] = [members[j], members[j + 1]];
      const gallery = test.filter((i) => i !== a && i !== b);
      const mean = vectors[a].map((x, d) => x + vectors[b][d]);
      const ways: Record<keyof typeof sums, (i: number) => number> = {
        first: (i) => dot(vectors[a], vectors[i]),
        best: (i) => Math.max(dot(vectors[a], vectors[i]), dot(vectors[b], vectors[i])),
        mean: (i) => dot(mean, vectors[i]),
      };
      for (const [way, score] of Object.entries(ways) as Array<[keyof typeof sums, (i: number) => number]>) {
        const top = gallery
          .map((i) => [score(i), i] as const)
          .sort((x, y) => y[0] - x[0] || x[1] - y[1])
          .slice(0, 10);
        for (const [, i] of top) {
          if (photos[i].type !== photos[a].type) continue;
          sums[way][0] += 0.1;
          if (photos[i].colour === photos[a].colour) sums[way][1] += 0.1;
        }
      }
      pairs++;
    }
  return { pairs, sums };
}

/**
 * Precision@10 of each query against a gallery (the query itself left out): the share of its 10
 * nearest with the same type, and with the same type and colour. Exact float dot products.
 */
export function precisionAt10(
  vectors: Float32Array[],
  photos: Array<{ type: string; colour: string }>,
  queries: number[],
  gallery: number[],
): [number, number] {
  let type = 0;
  let both = 0;
  for (const q of queries) {
    const query = vectors[q];
    const scored: Array<[number, number]> = [];
    for (const i of gallery) {
      if (i === q) continue;
      const v = vectors[i];
      let s = 0;
      for (let d = 0; d < v.length; d++) s += v[d] * query[d];
      scored.push([s, i]);
    }
    scored.sort((a, b) => b[0] - a[0] || a[1] - b[1]);
    for (const [, i] of scored.slice(0, 10)) {
      if (photos[i].type !== photos[q].type) continue;
      type++;
      if (photos[i].colour === photos[q].colour) both++;
    }
  }
  return [type / queries.length / 10, both / queries.length / 10];
}

export interface FoldFigures {
  /** Gallery = the held-out fold only: neither side was seen in training. */
  unseenGallery: [number, number];
  /** Gallery = every photo, embedded by the fold's head; queries = the held-out fold. */
  wholeCatalogue: [number, number];
}

/**
 * k-fold cross-validation of the head: for each fold, the head is fitted on the other folds (plus
 * `extra`, labelled images that are never queries), and the held-out photos are scored with it.
 * Returns, per colour weight, the figures of both protocols; `null` weight = no head (the backbone).
 */
export function crossValidate(
  photos: LabelledPhoto[],
  extra: TrainingSet,
  options: FitOptions,
  weights: Array<number | null>,
  folds = 5,
  progress?: (fold: number) => void,
  /** Sees each fold's vectors (every photo, by that fold's head) and its held-out photos: further measures. */
  inspect?: (weight: number | null, vectors: Float32Array[], test: number[]) => void,
): Map<number | null, FoldFigures> {
  const fold = stratifiedFolds(
    photos.map((p) => p.type),
    folds,
  );
  const sums = new Map(weights.map((w) => [w, { unseen: [0, 0], whole: [0, 0] }]));
  const all = photos.map((_, i) => i);
  for (let f = 0; f < folds; f++) {
    progress?.(f);
    const train = all.filter((i) => fold[i] !== f);
    const test = all.filter((i) => fold[i] === f);
    const fitted = weights.some((w) => w !== null)
      ? fitHead(
          {
            backbone: [...train.map((i) => photos[i].features.backbone), ...extra.backbone],
            colours: [...train.map((i) => photos[i].features.colours), ...extra.colours],
            shapeLabel: [...train.map((i) => photos[i].type), ...extra.shapeLabel],
            colourLabel: [...train.map((i) => photos[i].colour), ...extra.colourLabel],
          },
          options,
        )
      : undefined;
    for (const w of weights) {
      let vectors: Float32Array[];
      if (w === null || !fitted) vectors = photos.map((p) => p.features.backbone);
      else {
        const head = EmbeddingHead.fromWeights(
          { ...fitted.manifest, colour_weight: w, weights_file: '' },
          fitted.weights,
          `fold-${f}`,
        );
        vectors = photos.map((p) => head.apply(p.features.backbone, p.features.colours));
      }
      inspect?.(w, vectors, test);
      const sum = sums.get(w)!;
      const unseen = precisionAt10(vectors, photos, test, test);
      const whole = precisionAt10(vectors, photos, test, all);
      for (const level of [0, 1]) {
        sum.unseen[level] += unseen[level] * test.length;
        sum.whole[level] += whole[level] * test.length;
      }
    }
  }
  return new Map(
    [...sums].map(([w, sum]) => [
      w,
      {
        unseenGallery: [sum.unseen[0] / photos.length, sum.unseen[1] / photos.length],
        wholeCatalogue: [sum.whole[0] / photos.length, sum.whole[1] / photos.length],
      },
    ]),
  );
}
