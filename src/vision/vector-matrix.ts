/**
 * A growable dimension-major byte matrix ([dimensions × capacity]): column j is one vector. This is
 * the layout the scorer multiplies by a query in one MatMulInteger call. Free columns are filled with
 * the zero point, so they score 0.
 */
export class VectorMatrix {
  data: Uint8Array;
  capacity: number;

  constructor(
    readonly dimensions: number,
    readonly zeroPoint: number,
    capacity = 1024,
  ) {
    this.capacity = capacity;
    this.data = new Uint8Array(dimensions * capacity).fill(zeroPoint);
  }

  set(column: number, codes: Uint8Array) {
    if (column >= this.capacity) this.#grow(column + 1);
    const { data, capacity } = this;
    for (let d = 0; d < this.dimensions; d++) data[d * capacity + column] = codes[d];
  }

  /** A copy of one column's codes. */
  column(column: number): Uint8Array {
    const codes = new Uint8Array(this.dimensions).fill(this.zeroPoint);
    if (column >= this.capacity) return codes;
    for (let d = 0; d < this.dimensions; d++) codes[d] = this.data[d * this.capacity + column];
    return codes;
  }

  clear(column: number) {
    if (column >= this.capacity) return;
    for (let d = 0; d < this.dimensions; d++) this.data[d * this.capacity + column] = this.zeroPoint;
  }

  /** Grows by a quarter (rounded to 1,024 columns) rather than doubling, to keep memory near one byte a dimension. */
  #grow(needed: number) {
    const capacity = Math.ceil(Math.max(needed, this.capacity * 1.25) / 1024) * 1024;
    const data = new Uint8Array(this.dimensions * capacity).fill(this.zeroPoint);
    for (let d = 0; d < this.dimensions; d++)
      data.set(this.data.subarray(d * this.capacity, (d + 1) * this.capacity), d * capacity);
    this.data = data;
    this.capacity = capacity;
  }
}
