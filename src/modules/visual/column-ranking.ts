// What StoreVisualIndex.rank runs over every photo of a store, apart from the index itself.

/**
 * The `count` best-scoring columns (score: `raw × scale × queryScale`, positive only) in ascending
 * column order, and the lowest of them; undefined when a column left out scores within the rounding
 * margin (1e-6) of that lowest, so that ties are not decided by which came first. One pass with a
 * min-heap: a store of 1M products and 330,000 photos spent 9 ms scaling every score, copying them for
 * a quickselect and scanning them again.
 */
export function topColumns(
  scores: Int32Array,
  columns: number,
  scales: Float32Array,
  queryScale: number,
  count: number,
) {
  const heapScore = new Float64Array(count);
  const heapColumn = new Int32Array(count);
  let size = 0;
  let leftOut = 0;
  let column = 0;
  // Filling: the first `count` columns that score above 0.
  for (; column < columns && size < count; column++) {
    const raw = scores[column];
    if (raw <= 0) continue;
    const score = raw * scales[column] * queryScale;
    // Sift up.
    let i = size++;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (heapScore[parent] <= score) break;
      heapScore[i] = heapScore[parent];
      heapColumn[i] = heapColumn[parent];
      i = parent;
    }
    heapScore[i] = score;
    heapColumn[i] = column;
  }
  // Full: a column scoring at most the lowest kept is passed over. Scales are never negative and the
  // query's is positive, so a score of 0 or less (raw ≤ 0) always is, without a test of its own: an
  // unpredictable branch per column was most of the pass (2.8 ms over 330,000 photos).
  let lowest = size > 0 ? heapScore[0] : 0;
  for (; column < columns; column++) {
    const score = scores[column] * scales[column] * queryScale;
    if (score <= lowest) {
      if (score > leftOut) leftOut = score;
      continue;
    }
    if (lowest > leftOut) leftOut = lowest;
    // Replace the root, sift down.
    let i = 0;
    for (;;) {
      let child = 2 * i + 1;
      if (child >= count) break;
      if (child + 1 < count && heapScore[child + 1] < heapScore[child]) child++;
      if (heapScore[child] >= score) break;
      heapScore[i] = heapScore[child];
      heapColumn[i] = heapColumn[child];
      i = child;
    }
    heapScore[i] = score;
    heapColumn[i] = column;
    lowest = heapScore[0];
  }
  if (size < count) return undefined;
  if (leftOut >= lowest - 1e-6) return undefined;
  const order = Array.from(heapColumn.keys()).sort((x, y) => heapColumn[x] - heapColumn[y]);
  return {
    columns: Int32Array.from(order, (i) => heapColumn[i]),
    scores: Float64Array.from(order, (i) => heapScore[i]),
    lowest,
  };
}

/**
 * rank's slot tables, one set per process, grown to the largest store ranked: rank runs without a
 * pause, so no two calls share them at once. A store of 1M products otherwise allocated and zeroed
 * 16 MB for every photo search and `/v1/similar`.
 */
let scratch = { best: new Float64Array(0), bestRow: new Int32Array(0), bestColumn: new Int32Array(0) };

export function rankScratch(slots: number) {
  if (scratch.best.length < slots) {
    const size = Math.ceil((slots * 1.25) / 4096) * 4096;
    scratch = { best: new Float64Array(size), bestRow: new Int32Array(size), bestColumn: new Int32Array(size) };
  }
  return scratch;
}
