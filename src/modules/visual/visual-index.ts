import type { StorageHandle } from '../../storage/database.js';
import { BoundedCache } from '../../storage/bounded-cache.js';
import { VISIBLE_STATUSES } from '../../catalog/statuses.js';
import type { ChangeFeed } from '../../jobs/change-feed.js';
import type { VisionClient } from '../../vision/vision-client.js';
import type { ProductsReadPort } from '../products/products.read-port.js';
import * as repo from './visual.repository.js';
import { AttributeColumns, type VisualFilters } from './visual-filters.js';
import type { ImageCatalog } from './image-catalog.js';

export interface VisualHit {
  productCode: string;
  score: number;
  imageUrl: string;
}
export interface HitQuery {
  queryScale: number;
  filters: VisualFilters;
  offset: number;
  limit: number;
  exclude?: string;
}

const PAGE = 5000;
const OWNER_PRODUCT = 0;
const OWNER_ASSET = 1;
type Owner = { kind: number; key: string };
const ownerId = (kind: string, key: string) => `${kind === 'product' ? OWNER_PRODUCT : OWNER_ASSET}\u0000${key}`;

/**
 * One store's images in memory: the vectors themselves (one byte per dimension) live in the vision
 * thread's matrix, column by column; this side keeps, per column, its URL and scale, which products
 * or asset links show that URL, and the products' visibility and attributes for filtering. It is
 * brought up to date from the change log before each query, so a product that turns invisible drops
 * out of the next result, on every process.
 */
class StoreVisualIndex {
  seq = 0;
  generation = 0;
  // Products, by row number.
  readonly #rowOf = new Map<string, number>();
  readonly #codes: string[] = [];
  #visible = new Uint8Array(1024);
  readonly #parentOf: Array<string | null> = [];
  readonly #byParent = new Map<string, Set<number>>();
  readonly #attributes = new AttributeColumns();
  // Image columns.
  readonly #columnOf = new Map<string, number>();
  readonly #urlOf: Array<string | undefined> = [];
  #scales = new Float32Array(1024);
  readonly #free: number[] = [];
  columns = 0;
  // References: URL → owners, owner → URLs.
  readonly #ownersOf = new Map<string, Owner[]>();
  readonly #urlsOf = new Map<string, string[]>();

  constructor(
    readonly key: string,
    readonly model: string,
    readonly dimensions: number,
  ) {}

  get imageCount() {
    return this.#columnOf.size;
  }
  get productCount() {
    return this.#codes.length;
  }

  setProduct(code: string, status: string | null, parent: string | null, attributes: Record<string, unknown> | null) {
    let row = this.#rowOf.get(code);
    if (row === undefined) {
      if (status === null) return;
      row = this.#codes.length;
      this.#rowOf.set(code, row);
      this.#codes.push(code);
      this.#parentOf.push(null);
      if (row >= this.#visible.length) {
        const grown = new Uint8Array(this.#visible.length * 2);
        grown.set(this.#visible);
        this.#visible = grown;
      }
    }
    const oldParent = this.#parentOf[row];
    if (oldParent) this.#byParent.get(oldParent)?.delete(row);
    this.#visible[row] = status !== null && (VISIBLE_STATUSES as readonly string[]).includes(status) ? 1 : 0;
    this.#parentOf[row] = status === null ? null : parent;
    if (status !== null && parent) {
      let set = this.#byParent.get(parent);
      if (!set) this.#byParent.set(parent, (set = new Set()));
      set.add(row);
    }
    this.#attributes.set(row, attributes ?? {});
  }

  setOwnerUrls(kind: string, key: string, urls: string[]) {
    const id = ownerId(kind, key);
    for (const url of this.#urlsOf.get(id) ?? []) {
      const owners = (this.#ownersOf.get(url) ?? []).filter(
        (o) => !(o.kind === (kind === 'product' ? OWNER_PRODUCT : OWNER_ASSET) && o.key === key),
      );
      if (owners.length > 0) this.#ownersOf.set(url, owners);
      else this.#ownersOf.delete(url);
    }
    if (urls.length === 0) this.#urlsOf.delete(id);
    else this.#urlsOf.set(id, urls);
    for (const url of urls) {
      const owners = this.#ownersOf.get(url) ?? [];
      owners.push({ kind: kind === 'product' ? OWNER_PRODUCT : OWNER_ASSET, key });
      this.#ownersOf.set(url, owners);
    }
  }

  /** Places a vector (or removes the URL's column when `codes` is null); returns the column touched. */
  setVector(url: string, codes: Uint8Array | null, scale: number, vision: VisionClient) {
    let column = this.#columnOf.get(url);
    if (codes === null) {
      if (column === undefined) return;
      this.#columnOf.delete(url);
      this.#urlOf[column] = undefined;
      this.#free.push(column);
      vision.clearColumns(this.key, [column]);
      return;
    }
    if (column === undefined) {
      column = this.#free.pop() ?? this.columns++;
      this.#columnOf.set(url, column);
      this.#urlOf[column] = url;
      if (column >= this.#scales.length) {
        const grown = new Float32Array(this.#scales.length * 2);
        grown.set(this.#scales);
        this.#scales = grown;
      }
    }
    this.#scales[column] = scale;
    return column;
  }

  /** The product a reference shows: the product itself, or for an asset link the product whose code is the parent code, else its first visible variant. */
  #resolve(owner: Owner): number {
    const row = this.#rowOf.get(owner.key);
    if (owner.kind === OWNER_PRODUCT) return row !== undefined && this.#visible[row] ? row : -1;
    if (row !== undefined && this.#visible[row]) return row;
    let best = -1;
    for (const variant of this.#byParent.get(owner.key) ?? []) {
      if (this.#visible[variant] && (best < 0 || this.#codes[variant] < this.#codes[best])) best = variant;
    }
    return best;
  }

  isVisible(code: string) {
    const row = this.#rowOf.get(code);
    return row !== undefined && this.#visible[row] === 1;
  }
  urlsOfProduct(code: string) {
    return this.#urlsOf.get(ownerId('product', code)) ?? [];
  }
  urlsOfAssets(parent: string) {
    return this.#urlsOf.get(ownerId('asset', parent)) ?? [];
  }
  hasVector(url: string) {
    return this.#columnOf.has(url);
  }

  /** Best-first hits from the integer scores of every column: one per product (its best image), filters applied to every candidate. */
  rank(scores: Int32Array, { queryScale, filters, offset, limit, exclude }: HitQuery): VisualHit[] {
    const accepts = this.#attributes.compile(filters);
    const excluded = exclude === undefined ? -1 : (this.#rowOf.get(exclude) ?? -1);
    const bestScore = new Map<number, number>();
    const bestColumn = new Map<number, number>();
    for (let column = 0; column < scores.length; column++) {
      const raw = scores[column];
      if (raw <= 0) continue;
      const url = this.#urlOf[column];
      if (url === undefined) continue;
      const owners = this.#ownersOf.get(url);
      if (!owners) continue;
      const score = raw * this.#scales[column] * queryScale;
      for (const owner of owners) {
        const row = this.#resolve(owner);
        if (row < 0 || row === excluded || !accepts(row)) continue;
        const previous = bestScore.get(row);
        if (previous === undefined || score > previous) {
          bestScore.set(row, score);
          bestColumn.set(row, column);
        }
      }
    }
    const wanted = offset + limit;
    let rows = [...bestScore.keys()];
    if (rows.length > wanted * 2) {
      // Only rows at or above the wanted-th best score can be on the page: sort numbers, not objects.
      const sorted = Float64Array.from(bestScore.values()).sort();
      const threshold = sorted[sorted.length - wanted];
      rows = rows.filter((row) => bestScore.get(row)! >= threshold);
    }
    const rounded = (row: number) => Math.min(1, Math.max(1e-6, Math.round(bestScore.get(row)! * 1e6) / 1e6));
    rows.sort((a, b) => rounded(b) - rounded(a) || (this.#codes[a] < this.#codes[b] ? -1 : 1));
    return rows.slice(offset, wanted).map((row) => ({
      productCode: this.#codes[row],
      score: rounded(row),
      imageUrl: this.#urlOf[bestColumn.get(row)!]!,
    }));
  }
}

/** Rough bytes per product row and per image column (the vector's bytes live in the vision thread, counted too). */
const BYTES_PER_PRODUCT = 600;
const BYTES_PER_IMAGE = 200;

/**
 * The in-memory indexes of the stores this process has queried, built on first use from the
 * database (vectors persist there, so restarts and other processes share them), kept current from
 * the change log, and bounded by memory: the least recently used store's index is dropped (its
 * matrix released in the vision thread) and rebuilt when next asked for.
 */
export class VisualIndexes {
  readonly #indexes: BoundedCache<StoreVisualIndex>;
  readonly #building = new Map<string, Promise<StoreVisualIndex>>();

  constructor(
    private readonly storage: StorageHandle,
    private readonly changes: ChangeFeed,
    private readonly products: ProductsReadPort,
    private readonly catalog: ImageCatalog,
    private readonly vision: VisionClient,
    options: { indexBytes: number },
  ) {
    this.#indexes = new BoundedCache(
      'visual.index',
      options.indexBytes,
      (index) => 4096 + index.productCount * BYTES_PER_PRODUCT + index.columns * (BYTES_PER_IMAGE + index.dimensions),
      (_storeId, index) => this.vision.drop(index.key),
    );
  }

  /** The store's index, current up to `changeSeq` (the store's sequence read with the request). */
  async current(storeId: string, changeSeq: number): Promise<StoreVisualIndex> {
    const { model } = await this.vision.info();
    let index = this.#indexes.get(storeId);
    if (!index || index.generation !== this.vision.generation || index.model !== model) {
      let pending = this.#building.get(storeId);
      if (!pending) {
        pending = this.#build(storeId, model).finally(() => this.#building.delete(storeId));
        this.#building.set(storeId, pending);
      }
      index = await pending;
    }
    if (index.seq < changeSeq) {
      if (!(await this.#follow(index, storeId))) index = await this.#build(storeId, model);
      this.#indexes.set(storeId, index);
    }
    return index;
  }

  score(index: StoreVisualIndex, query: Uint8Array) {
    return this.vision.score(index.key, query, index.columns);
  }

  async #build(storeId: string, model: string): Promise<StoreVisualIndex> {
    await this.catalog.catchUp(storeId);
    const { dimensions } = await this.vision.info();
    const generation = this.vision.generation;
    const key = `${storeId}:${generation}`;
    this.vision.drop(key);
    const index = new StoreVisualIndex(key, model, dimensions);
    index.generation = generation;
    index.seq = await this.changes.latest(storeId);
    const db = this.storage.db;
    for await (const page of this.products.pageAll(storeId)) {
      for (const product of page)
        index.setProduct(product.code, product.status, product.parentCode, product.attributes);
    }
    const owners = new Map<string, { kind: string; key: string; urls: string[] }>();
    for (const ref of await repo.allRefs(db, storeId)) {
      const id = `${ref.owner_kind}\u0000${ref.owner_key}`;
      const owner = owners.get(id) ?? { kind: ref.owner_kind, key: ref.owner_key, urls: [] };
      owner.urls.push(ref.url);
      owners.set(id, owner);
    }
    for (const owner of owners.values()) index.setOwnerUrls(owner.kind, owner.key, owner.urls);
    for (let after = ''; ;) {
      const rows = await repo.pageOfVectors(db, storeId, model, after, PAGE);
      this.#placeVectors(index, rows);
      if (rows.length < PAGE) break;
      after = rows[rows.length - 1].url;
    }
    this.#indexes.set(storeId, index);
    return index;
  }

  #placeVectors(
    index: StoreVisualIndex,
    rows: Array<{ url: string; vector: Uint8Array | null; scale: number | null }>,
  ) {
    const columns: number[] = [];
    const chunks: Uint8Array[] = [];
    for (const row of rows) {
      if (!row.vector) {
        index.setVector(row.url, null, 0, this.vision);
        continue;
      }
      const column = index.setVector(row.url, row.vector, Number(row.scale), this.vision)!;
      columns.push(column);
      chunks.push(row.vector);
    }
    if (columns.length > 0) this.vision.setColumns(index.key, columns, Buffer.concat(chunks));
  }

  /** Applies the store's changes since the index's sequence number; false when they are no longer all retained. */
  async #follow(index: StoreVisualIndex, storeId: string): Promise<boolean> {
    await this.catalog.catchUp(storeId);
    const db = this.storage.db;
    // The sequence is read first: a change committed meanwhile is left for the next query, never skipped.
    const latest = await this.changes.latest(storeId);
    const changed = await this.changes.changedKeys(storeId, index.seq, latest, ['product', 'asset', 'image']);
    if (!changed) return false;
    const products = changed.get('product') ?? [];
    const parents = changed.get('asset') ?? [];
    const urls = new Set(changed.get('image') ?? []);
    const found = new Set<string>();
    for (const product of await this.products.attributesByCodes(storeId, products)) {
      found.add(product.code);
      index.setProduct(product.code, product.status, product.parentCode, product.attributes);
    }
    for (const code of products) if (!found.has(code)) index.setProduct(code, null, null, null);
    for (const [kind, keys] of [
      ['product', products],
      ['asset', parents],
    ] as const) {
      const byOwner = new Map<string, string[]>(keys.map((k) => [k, []]));
      for (const ref of await repo.refsOf(db, storeId, kind, keys)) byOwner.get(ref.owner_key)!.push(ref.url);
      for (const [key, list] of byOwner) {
        const before = kind === 'product' ? index.urlsOfProduct(key) : index.urlsOfAssets(key);
        for (const url of [...before, ...list]) urls.add(url);
        index.setOwnerUrls(kind, key, list);
      }
    }
    const list = [...urls];
    const rows = await repo.imagesByUrl(db, storeId, list);
    const usable = new Map(rows.filter((r) => r.state === 'indexed' && r.model === index.model).map((r) => [r.url, r]));
    this.#placeVectors(
      index,
      list.map((url) => usable.get(url) ?? { url, vector: null, scale: null }),
    );
    index.seq = Math.max(index.seq, latest);
    return true;
  }

  /** Stored vectors of the given image URLs (the current model's), for /similar. */
  async productVectors(storeId: string, urls: string[]) {
    if (urls.length === 0) return [];
    const { model } = await this.vision.info();
    return (await repo.imagesByUrl(this.storage.db, storeId, urls)).filter(
      (row) => row.state === 'indexed' && row.model === model,
    );
  }

  close() {
    for (const index of this.#indexes.values()) this.vision.drop(index.key);
    this.#indexes.close();
  }
}

export type { StoreVisualIndex };
