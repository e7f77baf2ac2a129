import { setImmediate as nextTurn } from 'node:timers/promises';
import type { StorageHandle } from '../../storage/database.js';
import { LiveStoreIndex } from '../../storage/live-store-index.js';
import type { ChangeFeed } from '../../storage/change-feed.js';
import type { VisionClient } from '../../vision/vision-client.js';
import type { ProductsReadPort } from '../products/products.read-port.js';
import * as repo from './visual.repository.js';
import type { ImageCatalog } from './image-catalog.js';
import { StoreVisualIndex, visualIndexKey } from './store-visual-index.js';
import { storeValues } from '../../catalog/attribute-columns.js';
import { storeRows } from '../../storage/store-rows.js';

/** Vectors read per query while an index is built. */
const PAGE = 5000;

/** Bytes per product row and per image column (the vector's bytes live in the vision thread, counted
 * too): measured on the generated 1M catalog, 556 MB for 1M products and 328k images before the
 * store's rows, strings and distinct values were shared with its other indexes, about 290 MB after
 * (heap snapshot); and of a store's index beside them. A store of 2,000 products measured 362 KB
 * against 1,090 estimated with 550 bytes a product (bench/index-memory.bench.ts). */
const BYTES_PER_PRODUCT = 200;
const BYTES_PER_STORE = 16 * 1024;
const BYTES_PER_IMAGE = 200;

/**
 * Search by photo's live per-store indexes (LiveStoreIndex): built on first use from the database
 * (vectors persist there, so restarts and other processes share them), followed from the change log,
 * bounded by memory (an evicted index's matrix is released in the vision thread).
 */
export class VisualIndexes {
  readonly #indexes: LiveStoreIndex<StoreVisualIndex>;

  constructor(
    private readonly storage: StorageHandle,
    private readonly changes: ChangeFeed,
    private readonly products: ProductsReadPort,
    private readonly catalog: ImageCatalog,
    private readonly vision: VisionClient,
    options: { indexBytes: number },
  ) {
    this.#indexes = new LiveStoreIndex({
      name: 'visual.index',
      budgetBytes: options.indexBytes,
      sizeOf: (index) =>
        BYTES_PER_STORE + index.productCount * BYTES_PER_PRODUCT + index.columns * (BYTES_PER_IMAGE + index.dimensions),
      onDrop: (_storeId, index) => this.vision.drop(index.matrixKey),
      build: (storeId) => this.#build(storeId),
      follow: (storeId, index) => this.#follow(index, storeId),
    });
  }

  /** The store's index, current up to `changeSeq` (the store's sequence read with the request). */
  async current(storeId: string, changeSeq: number): Promise<StoreVisualIndex> {
    const { model } = await this.vision.info();
    return this.#indexes.current(
      storeId,
      { seq: changeSeq, key: visualIndexKey(this.vision.generation, model) },
      undefined,
    );
  }

  score(index: StoreVisualIndex, query: Uint8Array) {
    return this.vision.score(index.matrixKey, query, index.columns);
  }

  async #build(storeId: string): Promise<StoreVisualIndex> {
    await this.catalog.catchUp(storeId);
    const { dimensions, model } = await this.vision.info();
    const generation = this.vision.generation;
    const matrixKey = `${storeId}:${generation}`;
    this.vision.drop(matrixKey);
    const index = new StoreVisualIndex(
      matrixKey,
      model,
      dimensions,
      generation,
      storeValues(storeId),
      storeRows(storeId),
    );
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
      // SQLite's reads resolve at once: a turn of the event loop lets requests in between pages.
      await nextTurn();
    }
    index.settle();
    return index;
  }

  #placeVectors(
    index: StoreVisualIndex,
    rows: Array<{ url: string; vector: Uint8Array | null; scale: number | null }>,
  ) {
    const columns: number[] = [];
    const chunks: Uint8Array[] = [];
    for (const row of rows) {
      // A vector of another length cannot be scored with this model's queries: left out, never misread.
      if (!row.vector || row.vector.length !== index.dimensions) {
        index.setVector(row.url, null, 0, this.vision);
        continue;
      }
      const column = index.setVector(row.url, row.vector, Number(row.scale), this.vision)!;
      columns.push(column);
      chunks.push(row.vector);
    }
    if (columns.length > 0) this.vision.setColumns(index.matrixKey, columns, Buffer.concat(chunks));
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

  /** Integer scores of every column against the normalised mean of the given columns (a product's own images). */
  scoreLike(index: StoreVisualIndex, columns: number[]) {
    return this.vision.scoreLike(
      index.matrixKey,
      columns,
      columns.map((column) => index.scaleOf(column)),
      index.columns,
    );
  }

  close() {
    this.#indexes.close();
  }
}
