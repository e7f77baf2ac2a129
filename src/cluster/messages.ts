import cluster from 'node:cluster';

/**
 * `vitrine serve --processes N`: N API processes on one port (node:cluster hands connections round
 * robin), so that every core serves. The primary process serves nothing itself: it migrates the
 * schema once, starts the N processes (restarting one that dies), shares what must be counted once
 * (rate limits when there is no Redis, and /metrics, aggregated), and stops them on SIGTERM.
 * Process 0 also runs the background work (change followers, image embedding, imports); the others
 * keep only their own in-memory indexes warm. Writes keep their guarantees: SQLite lets one writer
 * at a time hold the file, PostgreSQL has its transactions.
 */

/** This process's index among the API processes (0 when not clustered). */
export const PROCESS_INDEX = Number(process.env.VITRINE_PROCESS_INDEX ?? 0);

/** The group's secret (the primary's, per start) that marks a call one API process forwarded to another. */
export const PEER_SECRET = process.env.VITRINE_PEER_SECRET ?? '';

export const isClusterWorker = () => cluster.isWorker;

// ---- messages between the API processes and the primary -------------------------------------

export interface RateLimitCheck {
  key: string;
  timeWindow: number;
  max: number;
}
export type RateLimitResult = { current: number; ttl: number } | { error: string };
/** The rate-limit counts one API process needs for the requests it read in one turn of its event loop. */
export interface RateLimitRequest {
  type: 'vitrine:rate-limit';
  id: number;
  checks: RateLimitCheck[];
}
export interface RateLimitAnswer {
  type: 'vitrine:rate-limit';
  id: number;
  results?: RateLimitResult[];
  error?: string;
}
export interface MetricsRequest {
  type: 'vitrine:metrics';
  id: number;
}
export interface MetricsAnswer {
  type: 'vitrine:metrics';
  id: number;
  text?: string;
  error?: string;
}
export interface LockRequest {
  type: 'vitrine:write-lock';
  id: number;
}
export interface LockAnswer {
  type: 'vitrine:write-lock';
  id: number;
}
export interface PeerMessage {
  type: 'vitrine:peers';
  topic: string;
  payload: string;
}
/** An API process's private port, where the others forward the calls of the large stores it serves. */
export interface PeerPortMessage {
  type: 'vitrine:peer-port';
  index: number;
  port: number;
}
/** The primary to every API process: the private ports of the API processes that are up, by index. */
export interface PeerPortsMessage {
  type: 'vitrine:peer-ports';
  ports: Record<string, number>;
}
export type ClusterMessage =
  | RateLimitRequest
  | MetricsRequest
  | LockRequest
  | PeerMessage
  | { type: 'vitrine:write-unlock' }
  | ReadyMessage
  | PeerPortMessage;

/** An API process listens; process 0 hands over the start-up banner, printed once all of them listen. */
export interface ReadyMessage {
  type: 'vitrine:ready';
  banner?: string[];
}

let nextId = 0;
const pending = new Map<number, (answer: RateLimitAnswer | MetricsAnswer | LockAnswer) => void>();
/** Requests this process gave up on whose answer still matters when it comes (a lock granted late). */
const late = new Map<number, (answer: RateLimitAnswer | MetricsAnswer | LockAnswer) => void>();
let listening = false;

type WithoutId<T> = T extends unknown ? Omit<T, 'id'> : never;

/**
 * Sends a request to the primary and waits for its answer (API processes only). `onLate`: what to do
 * with an answer that comes after the wait was given up (a write lock granted late must be handed
 * back, or the primary would keep it for this process forever and every writer would wait).
 */
export function ask<A extends RateLimitAnswer | MetricsAnswer | LockAnswer>(
  message: WithoutId<RateLimitRequest | MetricsRequest | LockRequest>,
  timeoutMs = 2_000,
  onLate?: (answer: A) => void,
) {
  if (!listening) {
    listening = true;
    process.on('message', (answer: RateLimitAnswer | MetricsAnswer | LockAnswer) => {
      if (
        answer?.type !== 'vitrine:rate-limit' &&
        answer?.type !== 'vitrine:metrics' &&
        answer?.type !== 'vitrine:write-lock'
      )
        return;
      const resolve = pending.get(answer.id) ?? late.get(answer.id);
      pending.delete(answer.id);
      late.delete(answer.id);
      resolve?.(answer);
    });
  }
  return new Promise<A>((resolve, reject) => {
    const id = ++nextId;
    // When this process's event loop was busy past the deadline, the answer may be waiting unread:
    // the timer phase runs before I/O is read, so the check waits one more turn (setImmediate runs
    // after the I/O poll) before giving up.
    const timer = setTimeout(
      () =>
        setImmediate(() => {
          if (!pending.delete(id)) return;
          if (onLate) late.set(id, (answer) => onLate(answer as A));
          reject(new Error('the primary process did not answer'));
        }),
      timeoutMs,
    );
    pending.set(id, (answer) => {
      clearTimeout(timer);
      resolve(answer as A);
    });
    process.send!({ ...message, id });
  });
}

/** Tells the primary this API process listens (process 0 with the banner the primary prints). */
export function reportReady(banner?: string[]) {
  if (cluster.isWorker) process.send!({ type: 'vitrine:ready', banner } satisfies ReadyMessage);
}
