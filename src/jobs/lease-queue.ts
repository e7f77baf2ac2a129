import { sql, type RawBuilder } from 'kysely';
import type { StorageHandle } from '../storage/database.js';
import { inTransaction } from '../storage/transactions.js';
import { isDeadLocalOwner, LOCAL_OWNER_PATTERN } from './process-owner.js';

/**
 * The durable job queues (catalogue images, imports, webhook subscriptions) are rows of their own
 * tables with a lease: `claimed_by` names the worker, `claimed_until` when its claim lapses (other
 * names where a table has its own, `leaseColumns`). A worker claims ready rows
 * (on PostgreSQL read FOR UPDATE SKIP LOCKED, so concurrent workers take disjoint rows without
 * waiting), then confirms each claim with a conditional UPDATE (the only guard SQLite needs, and a
 * second one on PostgreSQL). A worker that dies leaves a lease that expires, and the row is claimed
 * again; results are written only `WHERE claimed_by = <the worker>`, so a worker whose lease was
 * taken over cannot overwrite the new holder's work.
 */
export interface LeaseQueue {
  /** The table whose rows are the jobs; it has `claimed_by` and `claimed_until` text columns (or `leaseColumns`). */
  table: 'images' | 'imports' | 'webhook_subscriptions';
  /** The lease's owner and expiry columns, when not `claimed_by` and `claimed_until`. */
  leaseColumns?: { owner: string; until: string };
  /** Its primary key columns. */
  keys: readonly string[];
  /** Other columns the claim returns. */
  columns?: readonly string[];
  /** Which rows are ready to run, at `now` (ISO time). */
  ready: (now: string) => RawBuilder<unknown>;
  /** Oldest first by this column. */
  orderBy: string;
  /** Columns the claim also sets (e.g. attempts + 1, status running). */
  onClaim?: (now: string) => RawBuilder<unknown>;
}

export type ClaimedRow = Record<string, unknown>;

const ownerOf = (queue: LeaseQueue) => sql.ref(queue.leaseColumns?.owner ?? 'claimed_by');
const untilOf = (queue: LeaseQueue) => sql.ref(queue.leaseColumns?.until ?? 'claimed_until');
const free = (queue: LeaseQueue, now: string) => sql`(${untilOf(queue)} IS NULL OR ${untilOf(queue)} < ${now})`;
const keyMatch = (keys: readonly string[], row: ClaimedRow) =>
  sql.join(
    keys.map((key) => sql`${sql.ref(key)} = ${row[key]}`),
    sql` AND `,
  );

/** How often a process looks for leases of dead processes of its host (per queue). */
const RECLAIM_EVERY_MS = 10_000;
const lastReclaim = new Map<string, number>();

/**
 * Frees the leases held by processes of this host that are gone (killed with -9), so their jobs are
 * claimed again now rather than when the lease lapses. At most every 10 s per queue.
 */
async function releaseDeadLocalLeases(storage: StorageHandle, queue: LeaseQueue, now: string) {
  const key = `${storage.description}|${queue.table}`;
  if (Date.now() - (lastReclaim.get(key) ?? 0) < RECLAIM_EVERY_MS) return;
  lastReclaim.set(key, Date.now());
  // `until >= now` reads only leased rows: the images table's partial index (migration 0023) on both engines.
  const { rows } = await sql<{
    owner: string;
  }>`SELECT DISTINCT ${ownerOf(queue)} AS owner FROM ${sql.table(queue.table)}
    WHERE ${untilOf(queue)} >= ${now} AND ${ownerOf(queue)} LIKE ${LOCAL_OWNER_PATTERN}`.execute(storage.db);
  for (const { owner } of rows) if (isDeadLocalOwner(owner)) await releaseLeases(storage, queue, owner);
}

export async function claimLeases(
  storage: StorageHandle,
  queue: LeaseQueue,
  workerId: string,
  limit: number,
  leaseMs: number,
): Promise<ClaimedRow[]> {
  await releaseDeadLocalLeases(storage, queue, new Date().toISOString());
  const now = new Date();
  const nowIso = now.toISOString();
  const until = new Date(now.getTime() + leaseMs).toISOString();
  const columns = [...queue.keys, ...(queue.columns ?? [])];
  return inTransaction(storage, async (trx) => {
    const lock = trx.dialect.supportsRowLocks ? sql` FOR UPDATE SKIP LOCKED` : sql``;
    const { rows } =
      await sql<ClaimedRow>`SELECT ${sql.join(columns.map((c) => sql.ref(c)))} FROM ${sql.table(queue.table)}
      WHERE ${queue.ready(nowIso)} AND ${free(queue, nowIso)} ORDER BY ${sql.ref(queue.orderBy)} LIMIT ${limit}${lock}`.execute(
        trx,
      );
    const claimed: ClaimedRow[] = [];
    for (const row of rows) {
      const extra = queue.onClaim ? sql`, ${queue.onClaim(nowIso)}` : sql``;
      const result =
        await sql`UPDATE ${sql.table(queue.table)} SET ${ownerOf(queue)} = ${workerId}, ${untilOf(queue)} = ${until}${extra}
        WHERE ${keyMatch(queue.keys, row)} AND ${queue.ready(nowIso)} AND ${free(queue, nowIso)}`.execute(trx);
      if (Number(result.numAffectedRows ?? 0) === 1) claimed.push(row);
    }
    return claimed;
  });
}

/** Extends a held lease (long jobs call this while they run); false when the lease was lost. */
export async function renewLease(
  storage: StorageHandle,
  queue: LeaseQueue,
  row: ClaimedRow,
  workerId: string,
  leaseMs: number,
): Promise<boolean> {
  const until = new Date(Date.now() + leaseMs).toISOString();
  const result = await sql`UPDATE ${sql.table(queue.table)} SET ${untilOf(queue)} = ${until}
    WHERE ${keyMatch(queue.keys, row)} AND ${ownerOf(queue)} = ${workerId}`.execute(storage.db);
  return Number(result.numAffectedRows ?? 0) === 1;
}

/** Gives up every lease a worker holds in a queue (it is stopping): the jobs are claimed again at once. */
export async function releaseLeases(storage: StorageHandle, queue: LeaseQueue, workerId: string) {
  // A lease already given up has no expiry: only held ones are read (the partial index of migration 0023).
  await sql`UPDATE ${sql.table(queue.table)} SET ${untilOf(queue)} = NULL
    WHERE ${untilOf(queue)} IS NOT NULL AND ${ownerOf(queue)} = ${workerId}`.execute(storage.db);
}

/** Gives up one job's lease (its run ended): claimable again at once. */
export async function releaseLease(storage: StorageHandle, queue: LeaseQueue, row: ClaimedRow, workerId: string) {
  await sql`UPDATE ${sql.table(queue.table)} SET ${ownerOf(queue)} = NULL, ${untilOf(queue)} = NULL
    WHERE ${keyMatch(queue.keys, row)} AND ${ownerOf(queue)} = ${workerId}`.execute(storage.db);
}
