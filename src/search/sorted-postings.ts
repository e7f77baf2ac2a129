/**
 * Postings as ascending document numbers (with a weighted frequency each): the merges, unions and
 * intersections RankedPostings answers a query with, each one sequential pass over typed arrays.
 */

/** Documents (ascending) with a weighted frequency in each. */
export interface Phrase {
  docs: Int32Array;
  /** Whole weighted frequencies are packed in 16 bits (RankedPostings), others as floats. */
  freqs: Float32Array | Uint16Array;
}

export const EMPTY_DOCS = new Int32Array(0);

/** An Int32Array that grows. */
export class IntList {
  values: Int32Array;
  length = 0;
  constructor(capacity = 1024) {
    this.values = new Int32Array(capacity);
  }
  push(value: number) {
    if (this.length === this.values.length) this.values = grown(this.values, this.length * 2);
    this.values[this.length++] = value;
  }
}

export function grown<T extends Int32Array | Uint8Array>(array: T, capacity: number): T {
  const next = new (array.constructor as new (n: number) => T)(capacity);
  next.set(array);
  return next;
}

/** Two ascending postings as one, the frequencies of a document in both summed. */
export function summed(a: Phrase, b: Phrase): Phrase {
  const docs = new Int32Array(a.docs.length + b.docs.length);
  const freqs = new Float32Array(docs.length);
  let i = 0;
  let j = 0;
  let n = 0;
  while (i < a.docs.length || j < b.docs.length) {
    const fromA = j >= b.docs.length || (i < a.docs.length && a.docs[i] <= b.docs[j]);
    const fromB = i >= a.docs.length || (j < b.docs.length && b.docs[j] <= a.docs[i]);
    docs[n] = fromA ? a.docs[i] : b.docs[j];
    freqs[n++] = (fromA ? a.freqs[i++] : 0) + (fromB ? b.freqs[j++] : 0);
  }
  return { docs: docs.subarray(0, n), freqs: freqs.subarray(0, n) };
}

/** The documents of either, ascending, each once. */
export function union(a: Int32Array, b: Int32Array): Int32Array {
  if (a.length === 0) return b;
  if (b.length === 0) return a;
  const out = new Int32Array(a.length + b.length);
  let i = 0;
  let j = 0;
  let n = 0;
  while (i < a.length || j < b.length) {
    const fromA = j >= b.length || (i < a.length && a[i] <= b[j]);
    const fromB = i >= a.length || (j < b.length && b[j] <= a[i]);
    out[n++] = fromA ? a[i] : b[j];
    if (fromA) i++;
    if (fromB) j++;
  }
  return out.subarray(0, n);
}

/** The documents of `a` also in `b` (`a` the shorter: `b` is galloped through). */
export function intersection(a: Int32Array, b: Int32Array): Int32Array {
  const out = new Int32Array(Math.min(a.length, b.length));
  let n = 0;
  let j = 0;
  for (let i = 0; i < a.length && j < b.length; i++) {
    const doc = a[i];
    if (b[j] < doc) {
      // Gallop, then a binary search within the last step.
      let step = 1;
      while (j + step < b.length && b[j + step] < doc) step *= 2;
      let low = j + (step >> 1);
      let high = Math.min(j + step, b.length);
      while (low < high) {
        const mid = (low + high) >>> 1;
        if (b[mid] < doc) low = mid + 1;
        else high = mid;
      }
      j = low;
    }
    if (j < b.length && b[j] === doc) out[n++] = doc;
  }
  return out.subarray(0, n);
}
