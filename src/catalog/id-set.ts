/**
 * A set of small non-negative integers (a column's distinct value ids) as a bitset, with its size and
 * largest member kept. A Set<number> costs about 20 bytes a member: the distinct ids of a 1M store's
 * listing and photo index (names, prices, parent codes, image URLs) were 41 MB of Set tables.
 */
export class IdSet {
  #words = new Uint32Array(4);
  size = 0;
  /** The largest member, 0 when empty. */
  largest = 0;

  add(id: number) {
    const word = id >>> 5;
    if (word >= this.#words.length) {
      const grown = new Uint32Array(Math.max(word + 1, this.#words.length * 2));
      grown.set(this.#words);
      this.#words = grown;
    }
    const bit = 1 << (id & 31);
    if ((this.#words[word] & bit) !== 0) return;
    this.#words[word] |= bit;
    this.size++;
    if (id > this.largest) this.largest = id;
  }

  has(id: number): boolean {
    return ((this.#words[id >>> 5] ?? 0) & (1 << (id & 31))) !== 0;
  }

  /** The members, ascending. */
  *[Symbol.iterator](): IterableIterator<number> {
    const words = this.#words;
    const end = (this.largest >>> 5) + 1;
    for (let w = 0; w < end; w++) {
      let bits = words[w];
      while (bits !== 0) {
        const low = bits & -bits;
        yield w * 32 + (31 - Math.clz32(low));
        bits ^= low;
      }
    }
  }
}
