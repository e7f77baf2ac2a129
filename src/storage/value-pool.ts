/**
 * Equal values shared among the records of one in-memory index. The sizes of a colourway repeat its
 * title, labels, image and traits; read row by row from the database each product gets copies of its
 * own, which at a million products is most of an index's memory (measured in one process on the
 * generated 1M catalog). A pool lives as long as its index: a string no record uses any more stays
 * until the index is rebuilt, which bounds it by the distinct strings the index has seen.
 */
export class ValuePool {
  readonly #strings = new Map<string, string>();
  readonly #last = new Map<string, object>();

  /**
   * @param shared a copy of a string kept elsewhere for longer (the store's attribute values), handed
   * out before a copy of the pool's own: the store's indexes then share one copy of a title or URL.
   */
  constructor(private shared?: (value: string) => string) {}

  /** The pool's copy of a string equal to `value`. */
  string(value: string): string {
    if (value === '') return '';
    const found = this.#strings.get(value);
    if (found !== undefined) return found;
    const kept = this.shared?.(value) ?? value;
    this.#strings.set(kept, kept);
    return kept;
  }

  /**
   * Forgets the strings met so far, keeping the values handed out: once an index is built, its
   * follows change few records, and the pool's map of every distinct string (a table of a million
   * entries, 28 MB, in a 1M store's photo index) costs more than the copies it would save them.
   */
  settle() {
    this.#strings.clear();
    // Nor holds on to where shared copies came from (an index of another lifetime).
    this.shared = undefined;
  }

  /**
   * `value`, or the last object kept under `kind` when every property is the same (===). Indexes are
   * built in product_code order, where a colourway's sizes come one after another: comparing with the
   * previous one shares what they repeat without keeping a key per object. Shared objects must never
   * be changed in place.
   */
  repeat<T extends object>(kind: string, value: T): T {
    const last = this.#last.get(kind) as T | undefined;
    if (last !== undefined && sameProperties(last, value)) return last;
    this.#last.set(kind, value);
    return value;
  }
}

function sameProperties(a: object, b: object): boolean {
  const keys = Object.keys(a);
  if (keys.length !== Object.keys(b).length) return false;
  for (const key of keys)
    if (!Object.is((a as Record<string, unknown>)[key], (b as Record<string, unknown>)[key])) return false;
  return true;
}
