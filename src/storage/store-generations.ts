/** The store as a request read it: its id and its change sequence at that moment. */
export interface StoreAtSeq {
  id: string;
  changeSeq: number;
}

/**
 * Which generation of each store a cache's entries belong to, and their keys (each key starts with
 * the store's id and a NUL). Entries are read at a store's change sequence (with what else they depend
 * on, in `generation`); when a newer generation is kept, the store's older entries are dropped at once:
 * no request can use them, and kept until the cache's budget pushed them out they would fill it for as
 * long as writes come.
 */
export class StoreGenerations {
  readonly #kept = new Map<string, { generation: string; seq: number; keys: Set<string> }>();

  /** `drop` removes a key from the cache; the cache calls `forget` for every key that leaves it. */
  constructor(private readonly drop: (key: string) => void) {}

  isCurrent(storeId: string, generation: string): boolean {
    return this.#kept.get(storeId)?.generation === generation;
  }

  /**
   * Notes `key` as kept at the store's generation, dropping the store's entries of another one. False:
   * the request read the store before its latest write and keeps nothing (the newer entries stay).
   */
  keep(store: StoreAtSeq, generation: string, key: string): boolean {
    let kept = this.#kept.get(store.id);
    if (kept && kept.generation !== generation) {
      if (store.changeSeq < kept.seq) return false;
      this.#kept.delete(store.id);
      for (const old of kept.keys) this.drop(old);
      kept = undefined;
    }
    if (!kept) this.#kept.set(store.id, (kept = { generation, seq: store.changeSeq, keys: new Set() }));
    kept.keys.add(key);
    return true;
  }

  /** A key left the cache (pushed out by the budget, or dropped with its generation). */
  forget(key: string) {
    const storeId = key.slice(0, key.indexOf('\u0000'));
    const kept = this.#kept.get(storeId);
    if (!kept) return;
    kept.keys.delete(key);
    if (kept.keys.size === 0) this.#kept.delete(storeId);
  }

  clear() {
    this.#kept.clear();
  }
}
