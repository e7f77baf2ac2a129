import { setImmediate as nextTurn } from 'node:timers/promises';
import { packStrings, stringAt, type PackedStrings } from '../../catalog/packed-strings.js';

/**
 * Product codes by row: the packed texts threads posted (each the next rows), then the codes added
 * since. Kept packed, a 1M store's codes are 14 MB instead of a million strings (about 40 MB) and
 * need no second of cloning and slicing when adopted; a code is decoded when asked for (a page's
 * fifty, a follow's binary search).
 */
export class CodeList {
  readonly #packed: PackedStrings[];
  /** Rows before each packed part, and after the last: `#starts[k]` is part k's first row. */
  readonly #starts: number[];
  readonly #added: string[] = [];

  constructor(packed: PackedStrings[] = []) {
    this.#packed = packed;
    this.#starts = [0];
    for (const part of packed) this.#starts.push(this.#starts[this.#starts.length - 1] + part.ends.length);
  }

  get length(): number {
    return this.#starts[this.#starts.length - 1] + this.#added.length;
  }

  at(row: number): string {
    const packedRows = this.#starts[this.#starts.length - 1];
    if (row >= packedRows) return this.#added[row - packedRows];
    let k = 0;
    while (this.#starts[k + 1] <= row) k++;
    return stringAt(this.#packed[k], row - this.#starts[k]);
  }

  push(code: string) {
    this.#added.push(code);
  }

  /** Every code as one packed text, to post to another thread. */
  packed(): PackedStrings {
    if (this.#packed.length === 0) return packStrings(this.#added);
    return packStrings(Array.from({ length: this.length }, (_, row) => this.at(row)));
  }

  /** Code → row for every row but `forgotten` ones (a turn of the event loop every 25,000 codes). */
  async rowMap(forgotten: Iterable<number>): Promise<Map<string, number>> {
    const rowOf = new Map<string, number>();
    for (let row = 0; row < this.length; row++) {
      rowOf.set(this.at(row), row);
      if (row % 25_000 === 24_999) await nextTurn();
    }
    for (const row of forgotten) rowOf.delete(this.at(row));
    return rowOf;
  }
}
