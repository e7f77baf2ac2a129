/**
 * One store's product codes numbered once for every in-memory index of a process: the listing, complete
 * the look and the photo index each keep their data by these row numbers. Each kept its own code → row
 * map and its own copy of every code string before, about 80 MB an index at 1M products (measured:
 * BENCHMARKS › Scale). Rows only grow: a code keeps its row while any index holds the store, through
 * deletes and re-creates, so no index ever sees a row change owner. A deleted product's code costs its
 * map entry until every index of the store has been dropped (the next build numbers only what exists).
 */
export class StoreRows {
  readonly #rowOf = new Map<string, number>();
  /** Row → code: the one copy of each code string the indexes compare and answer with. */
  readonly codes: string[] = [];

  /** The row of a code, or undefined when no index of this process has numbered it. */
  get(code: string): number | undefined {
    return this.#rowOf.get(code);
  }

  /** The row of a code, numbered now when new. */
  add(code: string): number {
    let row = this.#rowOf.get(code);
    if (row === undefined) {
      row = this.codes.length;
      this.#rowOf.set(code, row);
      this.codes.push(code);
    }
    return row;
  }

  get size(): number {
    return this.codes.length;
  }
}

/**
 * Writes `value` at `row` of a plain array, first filling any gap with `empty`: another index may have
 * numbered rows this one never holds, and a write far past an array's end makes V8 keep it as a
 * dictionary (an entry object per element).
 */
export function setRow<T>(array: T[], row: number, value: T, empty: T) {
  while (array.length < row) array.push(empty);
  array[row] = value;
}

/**
 * A value per store shared by the in-memory indexes of this process while any of them holds it: the
 * next index built for the store after every holder was dropped starts a new one.
 */
export function sharedPerStore<T extends object>(create: () => T): (storeId: string) => T {
  const held = new Map<string, WeakRef<T>>();
  const forget = new FinalizationRegistry<string>((storeId) => {
    if (held.get(storeId)?.deref() === undefined) held.delete(storeId);
  });
  return (storeId) => {
    const found = held.get(storeId)?.deref();
    if (found) return found;
    const created = create();
    held.set(storeId, new WeakRef(created));
    forget.register(created, storeId);
    return created;
  };
}

/** The store's rows shared by its in-memory indexes in this process. */
export const storeRows = sharedPerStore(() => new StoreRows());
