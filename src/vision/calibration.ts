/**
 * Calibrated probabilities, shared by the shipped tagger's training (training/fit-tagger.ts) and a
 * store's own label model (modules/tagging/store-model.ts): a softmax at a temperature, and the
 * temperature that makes held-out confidences mean what they say.
 */

/** Softmax of `values` at `temperature`, written over `values`. */
export function softmaxInPlace(values: Float64Array, temperature = 1): Float64Array {
  let max = -Infinity;
  for (const v of values) max = Math.max(max, v / temperature);
  let total = 0;
  for (let k = 0; k < values.length; k++) total += values[k] = Math.exp(values[k] / temperature - max);
  for (let k = 0; k < values.length; k++) values[k] /= total;
  return values;
}

/**
 * The temperature in [low, high] minimising the negative log-likelihood of held-out scores against
 * their true classes (golden-section search).
 */
export function fitTemperature(
  scores: Float64Array[],
  truths: number[],
  range: { low: number; high: number; steps: number },
): number {
  const nll = (t: number) => {
    let total = 0;
    for (let i = 0; i < scores.length; i++) {
      const p = softmaxInPlace(Float64Array.from(scores[i]), t);
      total -= Math.log(Math.max(p[truths[i]], 1e-12));
    }
    return total;
  };
  let { low, high } = range;
  const ratio = (Math.sqrt(5) - 1) / 2;
  for (let i = 0; i < range.steps; i++) {
    const a = high - ratio * (high - low);
    const b = low + ratio * (high - low);
    if (nll(a) < nll(b)) high = b;
    else low = a;
  }
  return (low + high) / 2;
}
