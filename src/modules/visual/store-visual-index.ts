import { isVisibleStatus } from '../../catalog/statuses.js';
import type { VisionClient } from '../../vision/vision-client.js';
import type { LiveIndex } from '../../storage/live-store-index.js';
import { AttributeColumns, ValueDictionary } from '../../catalog/attribute-columns.js';
import type { AudienceResolver, CompiledFilters } from '../../catalog/filters.js';
import type { GroupVariants } from '../../catalog/variants.js';
import { ValuePool } from '../../storage/value-pool.js';
import { kthLargest } from '../../storage/kth-largest.js';
import { rankScratch, topColumns } from './column-ranking.js';
import { setRow, StoreRows } from '../../storage/store-rows.js';

export interface VisualHit {
  productCode: string;
  score: number;
  imageUrl: string;
}
export interface HitQuery {
  queryScale: number;
  filters: CompiledFilters;
  /** How the store reads department labels (its vocabulary overrides), for Department filters. */
  resolver?: AudienceResolver;
  offset: number;
  limit: number;
  exclude?: string;
  /** One hit per family and colour, per family, or per product (`false`). */
  groupVariants: GroupVariants;
}

/**
 * An image's owner: a product, by its code itself (the row's own string: a 1M-product store has a
 * million owners, no object each), or an asset link, by its parent code.
 */
type Owner = string | { asset: string };

/**
 * One store's images in memory: the vectors themselves (one byte per dimension) live in the vision
 * thread's matrix, column by column; this side keeps, per column, its URL and scale, which products
 * or asset links show that URL, and the products' visibility and attributes for filtering. It is
 * brought up to date from the change log before each query, so a product that turns invisible drops
 * out of the next result, on every process.
 */
/** A visual index serves while the vision thread and the model it was built with do. */
export const visualIndexKey = (generation: number, model: string) => `${generation}\u0000${model}`;

export class StoreVisualIndex implements LiveIndex {
  seq = 0;
  generation = 0;
  // Products, by the store's row numbers (StoreRows, shared with its other indexes).
  readonly #rows: StoreRows;
  readonly #codes: string[];
  #products = 0;
  #visible = new Uint8Array(1024);
  /** Per row its parent code (null: none, or the product is gone); undefined: a row this index never held. */
  readonly #parentOf: Array<string | null | undefined> = [];
  readonly #attributes: AttributeColumns;
  // Image columns.
  readonly #columnOf = new Map<string, number>();
  readonly #urlOf: Array<string | undefined> = [];
  #scales = new Float32Array(1024);
  readonly #free: number[] = [];
  columns = 0;
  // References: URL → owners, owner → URLs (a product's by its row; a code without a row, and an
  // asset link's parent code, by key).
  readonly #ownersOf = new Map<string, Owner[]>();
  readonly #urlsOfRow: Array<string[] | undefined> = [];
  readonly #urlsOf = { product: new Map<string, string[]>(), asset: new Map<string, string[]>() };
  /** URLs, parent codes and URL lists repeat across a colourway's sizes: one copy each. */
  readonly #pool: ValuePool;
  /** Per column, the rows its owners resolve to; per row, its family number. Rebuilt after any change. */
  #resolved:
    | { start: Int32Array; rows: Int32Array; family: Int32Array; familyColour: Int32Array; unindexed: number }
    | undefined;

  /** What it was built for (the vision thread's generation and the model), for LiveStoreIndex. */
  readonly key: string;

  constructor(
    /** Where its vectors live in the vision thread. */
    readonly matrixKey: string,
    readonly model: string,
    readonly dimensions: number,
    generation = 0,
    /** The store's attribute values, shared with its listing (storeValues). */
    values = new ValueDictionary(),
    /** The store's rows, shared with its other indexes (storeRows). */
    rows = new StoreRows(),
  ) {
    this.#attributes = new AttributeColumns(values);
    // Until built, URLs and parent codes are the store's copies (its listing's too) where it has them.
    this.#pool = new ValuePool(values.shared);
    this.#rows = rows;
    this.#codes = rows.codes;
    this.generation = generation;
    this.key = visualIndexKey(generation, model);
  }

  /** Built: the pool forgets its strings (ValuePool.settle). */
  settle() {
    this.#pool.settle();
  }

  get imageCount() {
    return this.#columnOf.size;
  }
  get productCount() {
    return this.#products;
  }

  setProduct(code: string, status: string | null, parent: string | null, attributes: Record<string, unknown> | null) {
    this.#resolved = undefined;
    let row = this.#rows.get(code);
    if (row === undefined || this.#parentOf[row] === undefined) {
      if (status === null) return;
      row = this.#rows.add(code);
      this.#products++;
      if (row >= this.#visible.length) {
        const grown = new Uint8Array(Math.max(this.#visible.length * 2, row + 1));
        grown.set(this.#visible);
        this.#visible = grown;
      }
    }
    this.#visible[row] = isVisibleStatus(status) ? 1 : 0;
    this.#attributes.set(row, attributes ?? {});
    setRow(this.#parentOf, row, status === null || !parent ? null : this.#pool.string(parent), undefined);
    // URLs set before the product had a row.
    const early = this.#urlsOf.product.get(code);
    if (early) {
      this.#urlsOf.product.delete(code);
      setRow(this.#urlsOfRow, row, early, undefined);
    }
  }

  setOwnerUrls(kind: string, key: string, given: string[]) {
    this.#resolved = undefined;
    // Shared by every owner with the same images (a list is never changed in place).
    const urls = this.#pool.repeat(
      'urls',
      given.map((url) => this.#pool.string(url)),
    );
    const isThis =
      kind === 'product' ? (o: Owner) => o === key : (o: Owner) => typeof o !== 'string' && o.asset === key;
    for (const url of this.#urlsOfOwner(kind, key)) {
      const owners = (this.#ownersOf.get(url) ?? []).filter((o) => !isThis(o));
      if (owners.length > 0) this.#ownersOf.set(url, owners);
      else this.#ownersOf.delete(url);
    }
    // A product with a row (numbered by any of the store's indexes) keeps its list by row, and is
    // named by its row's own code string.
    const row = kind === 'product' ? this.#rows.get(key) : undefined;
    const byKey = this.#urlsOf[kind === 'product' ? 'product' : 'asset'];
    if (row !== undefined) setRow(this.#urlsOfRow, row, urls.length > 0 ? urls : undefined, undefined);
    else if (urls.length > 0) byKey.set(key, urls);
    else byKey.delete(key);
    const owner: Owner = kind !== 'product' ? { asset: key } : row === undefined ? key : this.#codes[row];
    for (const url of urls) {
      const owners = this.#ownersOf.get(url);
      // A pushed-to array keeps room for 17 (152 bytes): most URLs have a few owners, a colourway's
      // sizes, so a short list is copied at its length instead (37 MB less at 330,000 URLs).
      if (owners === undefined) this.#ownersOf.set(url, [owner]);
      else if (owners.length < 16) this.#ownersOf.set(url, owners.concat([owner]));
      else owners.push(owner);
    }
  }

  #urlsOfOwner(kind: string, key: string): string[] {
    if (kind !== 'product') return this.#urlsOf.asset.get(key) ?? [];
    const row = this.#rows.get(key);
    return (row === undefined ? this.#urlsOf.product.get(key) : this.#urlsOfRow[row]) ?? [];
  }

  /** Places a vector (or removes the URL's column when `codes` is null); returns the column touched. */
  setVector(url: string, codes: Uint8Array | null, scale: number, vision: VisionClient) {
    this.#resolved = undefined;
    let column = this.#columnOf.get(url);
    if (codes === null) {
      if (column === undefined) return;
      this.#columnOf.delete(url);
      this.#urlOf[column] = undefined;
      this.#free.push(column);
      vision.clearColumns(this.matrixKey, [column]);
      return;
    }
    if (column === undefined) {
      column = this.#free.pop() ?? this.columns++;
      const shared = this.#pool.string(url);
      this.#columnOf.set(shared, column);
      this.#urlOf[column] = shared;
      if (column >= this.#scales.length) {
        const grown = new Float32Array(this.#scales.length * 2);
        grown.set(this.#scales);
        this.#scales = grown;
      }
    }
    this.#scales[column] = scale;
    return column;
  }

  /**
   * The product a reference shows: the product itself, or for an asset link the product whose code
   * is the parent code, else its first visible variant (`firstVariant`, by parent code).
   */
  #resolve(owner: Owner, firstVariant: () => Map<string, number>): number {
    const key = typeof owner === 'string' ? owner : owner.asset;
    const row = this.#rows.get(key);
    if (row !== undefined && this.#visible[row]) return row;
    return typeof owner === 'string' ? -1 : (firstVariant().get(key) ?? -1);
  }

  /** Each parent code's visible variant with the smallest code (asset links show it). */
  #firstVariants(): Map<string, number> {
    const first = new Map<string, number>();
    for (let row = 0; row < this.#codes.length; row++) {
      const parent = this.#parentOf[row];
      if (!parent || !this.#visible[row]) continue;
      const best = first.get(parent);
      if (best === undefined || this.#codes[row] < this.#codes[best]) first.set(parent, row);
    }
    return first;
  }

  isVisible(code: string) {
    const row = this.#rows.get(code);
    return row !== undefined && this.#visible[row] === 1;
  }
  urlsOfProduct(code: string) {
    return this.#urlsOfOwner('product', code);
  }
  urlsOfAssets(parent: string) {
    return this.#urlsOfOwner('asset', parent);
  }
  hasVector(url: string) {
    return this.#columnOf.has(url);
  }

  /** Columns of every indexed image of a product: its own image fields, then its asset links. */
  columnsOfProduct(code: string) {
    const columns: number[] = [];
    for (const url of [...this.urlsOfProduct(code), ...this.urlsOfAssets(code)]) {
      const column = this.#columnOf.get(url);
      if (column !== undefined && !columns.includes(column)) columns.push(column);
    }
    return columns;
  }
  scaleOf(column: number) {
    return this.#scales[column];
  }
  /** Referenced images without a vector of the current model: pending, failed, or waiting to be re-embedded. */
  get unindexed() {
    return this.#resolveAll().unindexed;
  }

  /** Column → resolved rows (CSR layout: rows[start[c]..start[c+1]]) and row → family number, for rank's loop. */
  #resolveAll() {
    if (this.#resolved) return this.#resolved;
    const start = new Int32Array(this.columns + 1);
    const rows: number[] = [];
    let variants: Map<string, number> | undefined;
    const firstVariant = () => (variants ??= this.#firstVariants());
    for (let column = 0; column < this.columns; column++) {
      start[column] = rows.length;
      const url = this.#urlOf[column];
      for (const owner of (url !== undefined && this.#ownersOf.get(url)) || []) {
        const row = this.#resolve(owner, firstVariant);
        if (row >= 0 && !rows.includes(row, start[column])) rows.push(row);
      }
    }
    start[this.columns] = rows.length;
    // A family is the parent code of a variant, else the product's own code.
    const familyIds = new Map<string, number>();
    const family = new Int32Array(this.#codes.length);
    for (let row = 0; row < this.#codes.length; row++) {
      const key = this.#parentOf[row] ?? this.#codes[row];
      let id = familyIds.get(key);
      if (id === undefined) familyIds.set(key, (id = familyIds.size));
      family[row] = id;
    }
    // With colour: a family's colourways are told apart by their Colour value.
    const colour = this.#attributes.column('Colour');
    const groupIds = new Map<number, number>();
    const familyColour = new Int32Array(this.#codes.length);
    for (let row = 0; row < this.#codes.length; row++) {
      const key = family[row] * 0x200000 + (colour?.[row] ?? 0);
      let id = groupIds.get(key);
      if (id === undefined) groupIds.set(key, (id = groupIds.size));
      familyColour[row] = id;
    }
    let unindexed = 0;
    for (const url of this.#ownersOf.keys()) if (!this.#columnOf.has(url)) unindexed++;
    this.#resolved = { start, rows: Int32Array.from(rows), family, familyColour, unindexed };
    return this.#resolved;
  }

  /**
   * Best-first hits from the integer scores of every column (dot products, times `queryScale` and
   * each column's scale): one per product (its best image), or per product family
   * and colour or per family with `groupVariants`; filters applied to every candidate. Typed arrays only in the loop: it runs
   * over every image of the store.
   */
  rank(
    scores: Int32Array,
    { queryScale, filters, resolver, offset, limit, exclude, groupVariants }: HitQuery,
  ): VisualHit[] {
    const accepts = this.#attributes.compile(filters, resolver);
    const { start, rows, family, familyColour } = this.#resolveAll();
    const grouped = groupVariants !== 'false';
    const slotOf = groupVariants === 'colour' ? familyColour : family;
    const excludedRow = exclude === undefined ? -1 : (this.#rows.get(exclude) ?? -1);
    // Grouped, the source's whole family is left out (its other colours are the same product).
    const excludedFamily = grouped && excludedRow >= 0 ? family[excludedRow] : -1;
    const columns = Math.min(scores.length, this.columns);
    const scales = this.#scales;
    const { best, bestRow, bestColumn } = rankScratch(this.#codes.length);
    // A slot per product, or per family: its best score, row and column (`best` is 0 for every slot
    // between two calls: the touched ones are reset on the way out).
    let touched: number[] = [];
    const visit = (column: number, score: number) => {
      for (let k = start[column]; k < start[column + 1]; k++) {
        const row = rows[k];
        if (row === excludedRow) continue;
        if (grouped && family[row] === excludedFamily) continue;
        const slot = grouped ? slotOf[row] : row;
        const previous = best[slot];
        if (score < previous || !accepts(row)) continue;
        if (score === previous && this.#codes[bestRow[slot]] <= this.#codes[row]) continue;
        if (previous === 0) touched.push(slot);
        best[slot] = score;
        bestRow[slot] = row;
        bestColumn[slot] = column;
      }
    };
    const visitAll = () => {
      for (let column = 0; column < columns; column++) {
        const raw = scores[column];
        if (raw > 0) visit(column, raw * scales[column] * queryScale);
      }
    };
    try {
      const wanted = offset + limit;
      // First only the best `shortlist` columns, found in the one pass that scores them. When the
      // slots they reach fill the page, no other column can reach it; otherwise (filters, families,
      // invisible products took too many) every column.
      const shortlist = 4 * wanted + 64;
      const top = columns > shortlist * 4 ? topColumns(scores, columns, scales, queryScale, shortlist) : undefined;
      if (!top) visitAll();
      else {
        for (let i = 0; i < top.columns.length; i++) visit(top.columns[i], top.scores[i]);
        if (touched.filter((slot) => best[slot] >= top.lowest).length < wanted) {
          for (const slot of touched) best[slot] = 0;
          touched = [];
          visitAll();
        }
      }
      return this.#page(touched, best, bestRow, bestColumn, offset, wanted);
    } finally {
      for (const slot of touched) best[slot] = 0;
    }
  }

  #page(
    touched: number[],
    best: Float64Array,
    bestRow: Int32Array,
    bestColumn: Int32Array,
    offset: number,
    wanted: number,
  ): VisualHit[] {
    const rounded = (slot: number) => Math.min(1, Math.max(1e-6, Math.round(best[slot] * 1e6) / 1e6));
    let candidates = touched;
    if (candidates.length > wanted * 2) {
      // Only slots at or above the wanted-th best score can be on the page.
      const threshold = kthLargest(
        Float64Array.from(candidates, (slot) => best[slot]),
        wanted,
      );
      candidates = candidates.filter((slot) => best[slot] >= threshold - 1e-6);
    }
    candidates.sort((a, b) => rounded(b) - rounded(a) || (this.#codes[bestRow[a]] < this.#codes[bestRow[b]] ? -1 : 1));
    return candidates.slice(offset, wanted).map((slot) => ({
      productCode: this.#codes[bestRow[slot]],
      score: rounded(slot),
      imageUrl: this.#urlOf[bestColumn[slot]]!,
    }));
  }
}
