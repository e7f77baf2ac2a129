import { ask, type MetricsAnswer } from './messages.js';

/** /metrics of a clustered process: every process's metrics, aggregated by the primary. */
export async function clusterMetrics(): Promise<string> {
  const answer = await ask<MetricsAnswer>({ type: 'vitrine:metrics' });
  if (answer.error !== undefined) throw new Error(answer.error);
  return answer.text!;
}
