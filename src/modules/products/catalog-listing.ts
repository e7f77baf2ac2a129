import { colourKeyOf, familyOf, isInStock, sizeOf, type GroupVariants } from '../../catalog/variants.js';
import { priceOf } from '../../catalog/price.js';
import { attributeValue } from '../../catalog/filters.js';
import { qualityScoreOf } from '../../catalog/quality-score.js';
import { ValuePool } from '../../storage/value-pool.js';
import { setRow, StoreRows } from '../../storage/store-rows.js';

/** The orders a listing can be read in besides relevance; ties always by product_code. */
export const LISTING_SORTS = ['newest', 'price_asc', 'price_desc', 'name_asc'] as const;
export type ListingSort = (typeof LISTING_SORTS)[number];

/** A grouping of rows into cards: each row's group, the group count, each group's rows (code order). */
export interface Grouping {
  of: Int32Array;
  count: number;
  /** CSR: the rows of group g are members[start[g] .. start[g + 1]). */
  start: Int32Array;
  members: Int32Array;
}

/**
 * What a listing reads of each visible product besides its attribute columns, by row: family, colour,
 * size and stock, price, first stored, name. Rows are the store's (StoreRows, shared with its other
 * indexes), reused in place as products change; rows other indexes numbered are not live here. Derived
 * orders and groupings are computed once per version of the rows, when first asked for.
 */
export class ListingRows {
  /** Row → code, the store's rows' own array. */
  readonly codes: string[];
  live = new Uint8Array(1024);
  inStock = new Uint8Array(1024);
  /** NaN when the product has no valid price. */
  price = new Float64Array(1024);
  /** Content quality 0..1 (catalog/quality-score.ts). */
  quality = new Float32Array(1024);
  readonly family: string[] = [];
  readonly colour: string[] = [];
  readonly size: string[] = [];
  readonly created: string[] = [];
  readonly name: string[] = [];
  /** Family, colour, size, timestamps, names and cards repeat across a colourway's sizes: one copy each. */
  readonly pool: ValuePool;
  #derived: ListingSnapshot | undefined;

  constructor(
    readonly storeRows: StoreRows = new StoreRows(),
    /** The store's copies of attribute values (ValueDictionary.shared), until the listing is built. */
    shared?: (value: string) => string,
  ) {
    this.codes = storeRows.codes;
    this.pool = new ValuePool(shared);
  }

  get rowCount(): number {
    return this.codes.length;
  }

  /** Puts a product (its record) in its row, or takes it out (undefined); returns the row. */
  set(
    code: string,
    product: { parentCode: string | null; attributes: Record<string, unknown>; createdAt: string } | undefined,
  ): number | undefined {
    const row = product ? this.storeRows.add(code) : this.storeRows.get(code);
    if (row === undefined) return undefined;
    this.#derived = undefined;
    if (row >= this.live.length) this.#grow(row + 1);
    if (!product) {
      this.live[row] = 0;
      return row;
    }
    const { attributes } = product;
    this.live[row] = 1;
    this.inStock[row] = isInStock(attributes) ? 1 : 0;
    this.price[row] = priceOf(attributeValue(attributes, 'Selling Price')) ?? Number.NaN;
    this.quality[row] = qualityScoreOf(attributes);
    const { pool } = this;
    setRow(
      this.family,
      row,
      pool.string(familyOf(code, product.parentCode ?? (attributes.parent_code as string | undefined))),
      '',
    );
    setRow(this.colour, row, pool.string(colourKeyOf(attributes)), '');
    setRow(this.size, row, pool.string(sizeOf(attributes)), '');
    setRow(this.created, row, pool.string(product.createdAt), '');
    const name = attributes['Product Name'];
    setRow(this.name, row, typeof name === 'string' ? pool.string(name.trim().toLowerCase()) : '', '');
    return row;
  }

  /** The derived orders and groupings of the rows as they are now. */
  snapshot(): ListingSnapshot {
    return (this.#derived ??= new ListingSnapshot(this));
  }

  #grow(needed: number) {
    const capacity = Math.max(needed, Math.ceil(this.live.length * 1.5));
    const grow = <A extends Uint8Array | Float32Array | Float64Array>(array: A, make: (n: number) => A): A => {
      const grown = make(capacity);
      grown.set(array);
      return grown;
    };
    this.live = grow(this.live, (n) => new Uint8Array(n));
    this.inStock = grow(this.inStock, (n) => new Uint8Array(n));
    this.price = grow(this.price, (n) => new Float64Array(n));
    this.quality = grow(this.quality, (n) => new Float32Array(n));
  }
}

const byCode = (codes: string[]) => (a: number, b: number) => (codes[a] < codes[b] ? -1 : codes[a] > codes[b] ? 1 : 0);

/** Orders and groupings of one version of the rows, each computed on first use. */
export class ListingSnapshot {
  readonly #orders = new Map<ListingSort | 'code', { order: Int32Array; rank: Int32Array }>();
  readonly #groupings = new Map<GroupVariants, Grouping>();
  readonly #memo = new Map<string, unknown>();
  readonly liveRows: Int32Array;

  constructor(readonly rows: ListingRows) {
    const live: number[] = [];
    for (let row = 0; row < rows.rowCount; row++) if (rows.live[row]) live.push(row);
    this.liveRows = Int32Array.from(live.sort(byCode(rows.codes)));
  }

  /** Live rows in `sort` order (ties by product_code), and each row's position in it. */
  order(sort: ListingSort | 'code'): { order: Int32Array; rank: Int32Array } {
    let found = this.#orders.get(sort);
    if (!found) {
      const { rows } = this;
      const order = Array.from(this.liveRows); // already in code order: a stable sort keeps it for ties
      const price = (row: number) => rows.price[row];
      const missingLast = (a: number, b: number, compare: number) =>
        Number.isNaN(price(a)) ? (Number.isNaN(price(b)) ? 0 : 1) : Number.isNaN(price(b)) ? -1 : compare;
      if (sort === 'newest')
        order.sort((a, b) => (rows.created[a] > rows.created[b] ? -1 : rows.created[a] < rows.created[b] ? 1 : 0));
      else if (sort === 'price_asc') order.sort((a, b) => missingLast(a, b, price(a) - price(b)));
      else if (sort === 'price_desc') order.sort((a, b) => missingLast(a, b, price(b) - price(a)));
      else if (sort === 'name_asc')
        order.sort((a, b) => (rows.name[a] < rows.name[b] ? -1 : rows.name[a] > rows.name[b] ? 1 : 0));
      const rank = new Int32Array(rows.rowCount).fill(-1);
      order.forEach((row, position) => (rank[row] = position));
      found = { order: Int32Array.from(order), rank };
      this.#orders.set(sort, found);
    }
    return found;
  }

  /** A value derived from this version of the rows, computed once (a facet over the whole catalog). */
  memo<T>(key: string, compute: () => T): T {
    if (!this.#memo.has(key)) this.#memo.set(key, compute());
    return this.#memo.get(key) as T;
  }

  /** Rows grouped into cards: per SKU, per family, or per family and colour. */
  grouping(mode: GroupVariants): Grouping {
    let found = this.#groupings.get(mode);
    if (!found) {
      const { rows } = this;
      const ids = new Map<string, number>();
      const of = new Int32Array(rows.rowCount).fill(-1);
      for (const row of this.liveRows) {
        const key =
          mode === 'false'
            ? rows.codes[row]
            : mode === 'parent'
              ? rows.family[row]
              : `${rows.family[row]}\u0000${rows.colour[row]}`;
        let id = ids.get(key);
        if (id === undefined) ids.set(key, (id = ids.size));
        of[row] = id;
      }
      const start = new Int32Array(ids.size + 1);
      for (const row of this.liveRows) start[of[row] + 1]++;
      for (let g = 0; g < ids.size; g++) start[g + 1] += start[g];
      const fill = start.slice(0, ids.size);
      const members = new Int32Array(this.liveRows.length);
      for (const row of this.liveRows) members[fill[of[row]]++] = row; // liveRows in code order
      found = { of, count: ids.size, start, members };
      this.#groupings.set(mode, found);
    }
    return found;
  }
}
