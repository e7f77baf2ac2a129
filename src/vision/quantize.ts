/**
 * Vectors are kept as one byte per dimension with a per-vector scale (≤ 1.3 KB for 1280 dimensions):
 * value ≈ (code − zeroPoint) × scale. Non-negative embeddings (ReLU features such as MobileNet's) use
 * zero point 0 and all 255 levels; signed embeddings (a CLIP encoder) use zero point 128.
 */
export interface QuantizedVector {
  codes: Uint8Array;
  scale: number;
}

export function quantize(vector: Float32Array, zeroPoint: number): QuantizedVector {
  let max = 0;
  for (const x of vector) max = Math.max(max, zeroPoint === 0 ? x : Math.abs(x));
  const levels = 255 - zeroPoint;
  const scale = max > 0 ? max / levels : 1;
  const codes = new Uint8Array(vector.length);
  for (let i = 0; i < vector.length; i++) {
    const level = Math.round(vector[i] / scale);
    codes[i] = zeroPoint + Math.max(zeroPoint === 0 ? 0 : -levels, Math.min(levels, level));
  }
  return { codes, scale };
}

/** The vector scaled to unit length, in place (a zero vector stays zero). */
export function normalise(vector: Float32Array): Float32Array {
  let sum = 0;
  for (const x of vector) sum += x * x;
  const norm = Math.sqrt(sum) || 1;
  for (let i = 0; i < vector.length; i++) vector[i] /= norm;
  return vector;
}
