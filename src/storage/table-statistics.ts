import type { StorageHandle } from './dialect.js';

/** The first refresh after this many rows written by this process; each next one after twice as many. */
const FIRST_REFRESH_AFTER = 20_000;

/**
 * Keeps the planner's statistics of tables that a background writer grows fast. A store imported
 * into an empty database grows image_refs and search_docs from nothing to a million rows in
 * minutes, faster than autovacuum analyses them (and some servers run without it): PostgreSQL then
 * plans with the statistics of an empty table. Measured on the generated 1M catalog: each 500-code
 * delete of the image follower read all 779k references of the store through the primary key's
 * first two columns (284 ms a batch, growing with the table) instead of looking the 500 codes up,
 * so following a 1M import took 75 times as long as 44k where the import itself took 21 times.
 * Refreshing when this process has written twice as many rows as at the last refresh keeps the
 * estimates within a factor of two at a few ANALYZE runs per million rows (each samples 30,000 rows).
 */
export class TableStatistics {
  #written = 0;
  #next: number;
  #refreshing: Promise<void> | undefined;

  constructor(
    private readonly storage: StorageHandle,
    private readonly tables: readonly string[],
    private readonly onError: (error: unknown) => void = () => {},
    firstRefreshAfter = FIRST_REFRESH_AFTER,
  ) {
    this.#next = firstRefreshAfter;
  }

  /** Counts rows written (committed); past the next threshold refreshes the tables' statistics, in the background. */
  wrote(rows: number): void {
    this.#written += rows;
    if (this.#written < this.#next || this.#refreshing) return;
    this.#next = this.#written * 2;
    this.#refreshing = this.storage.dialect
      .analyze(this.storage.db, this.tables)
      .catch(this.onError)
      .finally(() => (this.#refreshing = undefined));
  }

  /** The refresh under way, if any (tests). */
  settled(): Promise<void> {
    return this.#refreshing ?? Promise.resolve();
  }
}
