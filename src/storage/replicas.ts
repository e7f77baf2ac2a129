import type pg from 'pg';
import { PostgresDialect, type Driver } from 'kysely';
import type { ReplicaTarget } from './read-routing.js';
import { withTimeout } from '../net/with-timeout.js';

/** A WAL position (`X/Y` in hex) as a number that orders correctly. */
export function walPosition(text: string | null | undefined): bigint | undefined {
  const match = /^([0-9A-F]+)\/([0-9A-F]+)$/i.exec(text ?? '');
  return match ? (BigInt(`0x${match[1]}`) << 32n) + BigInt(`0x${match[2]}`) : undefined;
}

/** What one look at a replica found. */
export interface ReplicaProbe {
  /** False: the server is not (or no longer) a standby, e.g. it was promoted; it is not read from. */
  inRecovery: boolean;
  /** The WAL position it has replayed up to. */
  replayed: bigint | undefined;
}

export interface ReplicaStatus {
  /** `replica-<n>` (its place in DATABASE_READ_URLS, from 1), as /metrics and /readyz name it. */
  name: string;
  /** Host, port and database, without credentials. */
  target: string;
  state: 'ok' | 'lagging' | 'down' | 'not a standby' | 'starting';
  /** How far behind the primary it is, in milliseconds (null when unknown). */
  lag_ms: number | null;
  /** Why it is not used, when it is not. */
  reason?: string;
}

export interface ReplicaSetOptions {
  /** A replica further behind than this is not read from (VITRINE_REPLICA_MAX_LAG_MS). */
  maxLagMs: number;
  /** The primary's current WAL position. */
  primaryPosition: () => Promise<bigint>;
  /** How often the primary and each replica are looked at. */
  pollMs?: number;
  /** Looks at one replica (tests replace it to inject lag). */
  probe?: (pool: pg.Pool, index: number) => Promise<ReplicaProbe>;
}

interface Replica {
  index: number;
  target: string;
  pool: pg.Pool;
  driver: Driver;
  probe?: ReplicaProbe;
  lagMs: number | null;
  error?: string;
  reads: number;
}

/** How long a probe may take before the replica is taken as down. */
const PROBE_TIMEOUT_MS = 1_000;

async function probeStandby(pool: pg.Pool): Promise<ReplicaProbe> {
  const { rows } = await pool.query<{ recovery: boolean; replayed: string | null }>(
    'SELECT pg_is_in_recovery() AS recovery, pg_last_wal_replay_lsn()::text AS replayed',
  );
  return { inRecovery: rows[0].recovery, replayed: walPosition(rows[0].replayed) };
}

/**
 * The read replicas of DATABASE_READ_URLS. Every `pollMs` it notes the primary's WAL position and
 * asks each replica how far it has replayed: a replica's lag is the age of the oldest primary
 * position it has not reached (exact to one poll). A replica that does not answer, is no longer a
 * standby, or lags beyond `maxLagMs` is skipped until it is back. `pick(position)` returns a usable
 * replica that has replayed at least `position` (a caller's own last write), round robin.
 */
export class ReplicaSet {
  readonly #replicas: Replica[];
  /** The primary's positions over the last moments, oldest first: [time, position]. */
  readonly #history: Array<[number, bigint]> = [];
  #primaryError?: string;
  readonly #timer: NodeJS.Timeout;
  readonly #ready: Promise<unknown>;
  #next = 0;
  #polling?: Promise<void>;
  #primaryReads = 0;

  constructor(
    pools: Array<{ pool: pg.Pool; target: string }>,
    private readonly options: ReplicaSetOptions,
  ) {
    this.#replicas = pools.map(({ pool, target }, index) => ({
      index,
      target,
      pool,
      driver: new PostgresDialect({ pool }).createDriver(),
      lagMs: null,
      reads: 0,
    }));
    // Looks at once, then keeps looking in the background; nothing is read from a replica before its first look.
    this.#ready = Promise.all(this.#replicas.map((replica) => replica.driver.init()));
    void this.poll();
    this.#timer = setInterval(() => void this.poll(), options.pollMs ?? 250);
    this.#timer.unref();
  }

  /** One look at the primary and the replicas (concurrent calls share it). */
  poll(): Promise<void> {
    this.#polling ??= this.#poll().finally(() => (this.#polling = undefined));
    return this.#polling;
  }

  async #poll() {
    await this.#ready;
    const now = Date.now();
    try {
      const position = await this.options.primaryPosition();
      this.#history.push([now, position]);
      this.#primaryError = undefined;
    } catch (error) {
      this.#primaryError = (error as Error).message;
    }
    // Positions older than the lag a replica may have are no longer needed to measure it.
    const keepFrom = now - this.options.maxLagMs * 2 - 5_000;
    while (this.#history.length > 1 && this.#history[0][0] < keepFrom) this.#history.shift();
    const probe = this.options.probe ?? ((pool: pg.Pool) => probeStandby(pool));
    await Promise.all(
      this.#replicas.map(async (replica) => {
        try {
          replica.probe = await withTimeout(probe(replica.pool, replica.index), PROBE_TIMEOUT_MS);
          replica.error = undefined;
          replica.lagMs = this.#lagOf(replica.probe, now);
        } catch (error) {
          replica.probe = undefined;
          replica.lagMs = null;
          replica.error = (error as Error).message || String(error);
        }
      }),
    );
  }

  /** The age of the oldest primary position the replica has not replayed (0: it has them all). */
  #lagOf(probe: ReplicaProbe, now: number): number | null {
    if (probe.replayed === undefined) return null;
    const missed = this.#history.find(([, position]) => position > probe.replayed!);
    return missed ? now - missed[0] : 0;
  }

  #usable(replica: Replica, position: bigint | undefined): boolean {
    const probe = replica.probe;
    if (!probe?.inRecovery || replica.lagMs === null || replica.lagMs > this.options.maxLagMs) return false;
    return position === undefined || (probe.replayed !== undefined && probe.replayed >= position);
  }

  /** A replica that may answer a read which must see `position` (the caller's last write), if any. */
  pick(position?: bigint): ReplicaTarget | undefined {
    const count = this.#replicas.length;
    for (let step = 0; step < count; step++) {
      const replica = this.#replicas[(this.#next + step) % count];
      if (!this.#usable(replica, position)) continue;
      this.#next = (replica.index + 1) % count;
      return {
        name: `replica-${replica.index + 1}`,
        driver: replica.driver,
        counted: () => void replica.reads++,
      };
    }
    return undefined;
  }

  /** Counts a statement of a routed request that went to the primary (a write, a transaction, raw SQL). */
  countPrimary() {
    this.#primaryReads++;
  }

  /** Statements sent to each server by requests that could use a replica, since start (for /metrics). */
  statements(): Record<string, number> {
    return Object.fromEntries([
      ['primary', this.#primaryReads],
      ...this.#replicas.map((replica) => [`replica-${replica.index + 1}`, replica.reads]),
    ]);
  }

  status(): ReplicaStatus[] {
    return this.#replicas.map((replica) => {
      const base = { name: `replica-${replica.index + 1}`, target: replica.target, lag_ms: replica.lagMs };
      if (replica.error !== undefined) return { ...base, state: 'down', reason: replica.error };
      if (!replica.probe) return { ...base, state: 'starting' };
      if (!replica.probe.inRecovery)
        return { ...base, state: 'not a standby', reason: 'the server is not replaying a primary (promoted?)' };
      if (replica.lagMs === null || replica.lagMs > this.options.maxLagMs)
        return {
          ...base,
          state: 'lagging',
          reason: `${replica.lagMs ?? 'unknown'} ms behind the primary (VITRINE_REPLICA_MAX_LAG_MS ${this.options.maxLagMs})${this.#primaryError ? `; primary: ${this.#primaryError}` : ''}`,
        };
      return { ...base, state: 'ok' };
    });
  }

  async close() {
    clearInterval(this.#timer);
    await this.#polling?.catch(() => undefined);
    await Promise.all(this.#replicas.map((replica) => replica.driver.destroy()));
  }
}
