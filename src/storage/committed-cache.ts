import type { StorageHandle } from './dialect.js';

/**
 * Results of per-request lookups, kept while the database is unchanged: every entry is dropped as
 * soon as any connection (another API process, the CLI, this process's writer) commits anything,
 * so a revoked token or a changed store is never served from here. Only where the storage can tell
 * cheaply that nothing was committed (`committedVersion`: SQLite's data_version); elsewhere every
 * lookup runs. Values are shared between requests and must not be mutated.
 */
export class CommittedReadCache<V> {
  readonly #entries = new Map<string, V>();
  #version: number | undefined;

  constructor(
    private readonly storage: StorageHandle,
    private readonly maxEntries = 10_000,
  ) {}

  async get(key: string, load: () => Promise<V>): Promise<V> {
    const committedVersion = this.storage.committedVersion;
    if (!committedVersion) return load();
    const version = committedVersion();
    if (version !== this.#version) {
      this.#entries.clear();
      this.#version = version;
    } else {
      const hit = this.#entries.get(key);
      if (hit !== undefined) return hit;
    }
    const value = await load();
    // Stored under the version read before loading: a commit during the load clears it next time.
    if (this.#version === version) {
      if (this.#entries.size >= this.maxEntries) this.#entries.clear();
      this.#entries.set(key, value);
    }
    return value;
  }
}
