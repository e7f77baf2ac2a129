import type { ChangeFeed } from '../../storage/change-feed.js';
import { LiveStoreIndex, type LiveIndex } from '../../storage/live-store-index.js';
import { productCardOf, type ProductCard } from '../../catalog/product-summary.js';
import type { ProductsReadPort } from './products.read-port.js';
import { AttributeColumns, storeValues } from '../../catalog/attribute-columns.js';
import { ListingRows, type ListingSnapshot } from './catalog-listing.js';
import { isInStock } from '../../catalog/variants.js';
import type { ProductRecord } from './products.read-port.js';
import { setRow, storeRows, type StoreRows } from '../../storage/store-rows.js';

/** A card as listings show it: the card fields and the product's title (its code when it has none). */
export type ListingCard = ProductCard & { title: string };

interface CardIndex extends LiveIndex {
  /** Each row's card (undefined: the row's product is not visible). By row, not by code: a second map of every code cost 30–60 bytes a product. */
  cards: Array<ListingCard | undefined>;
  /** Every visible product's attributes, dictionary-encoded by row, for filters. */
  columns: AttributeColumns;
  /** How many products it holds. */
  held: number;
  /** Family, colour, size, stock, price, age and name by row: grouping, sorting, sizes. */
  rows: ListingRows;
}

/** A store's visible products as a listing reads them, at one moment (use it without awaiting in between). */
export interface CatalogListing {
  /** A visible product's card; undefined for any other code. */
  cardOf(code: string): ListingCard | undefined;
  columns: AttributeColumns;
  /** The store's rows (shared with its other indexes): a code's row here is live only when `rows.live` says so. */
  rowOf: Pick<StoreRows, 'get'>;
  rows: ListingRows;
  snapshot: ListingSnapshot;
}

/**
 * Bytes of one product in memory (its share of a colourway's card, its row of attribute ids and
 * listing fields, and the store's row of its code, which the listing is usually the first index to
 * number): measured, heap and array buffers, on the generated 1M catalog (411 B, with rows of its own);
 * and of a store's listing beside its products (columns, value pools, the snapshot's arrays). With 256 B
 * for the latter, a store of 2,000 products cost 1.2× its estimate (30 stores measured in one process
 * after a full collection, with complete the look that is built with it), 500 products 1.5×.
 */
const BYTES_PER_CARD = 480;
const BYTES_PER_LISTING = 128 * 1024;
/** Past this many changes a rebuild reads less than following them. */
const REBUILD_AFTER = 20_000;

/**
 * Every visible product's card (family, first image, price, currency) of a store, in memory: the
 * fields a result grid shows beside a hit, answered without a query per search. A LiveStoreIndex:
 * built on first use, followed from the change log, bounded by VITRINE_CARD_INDEX_MB.
 */
export class ProductCards {
  readonly #index: LiveStoreIndex<CardIndex>;

  constructor(private readonly deps: { products: ProductsReadPort; changeLog: ChangeFeed; budgetBytes: number }) {
    this.#index = new LiveStoreIndex<CardIndex>({
      name: 'products.cards',
      budgetBytes: deps.budgetBytes,
      sizeOf: (index) => BYTES_PER_LISTING + index.held * BYTES_PER_CARD,
      build: (storeId) => this.#build(storeId),
      follow: (storeId, index, target) => this.#follow(storeId, index, target.seq),
    });
  }

  /** The store's visible products for a listing (filters, facets, grouping, sorting), as of `changeSeq`. */
  async listing(store: { id: string; changeSeq: number }): Promise<CatalogListing> {
    const index = await this.#index.current(store.id, { seq: store.changeSeq, key: 'cards' }, undefined);
    return {
      cardOf: (code) => {
        const row = index.rows.storeRows.get(code);
        return row === undefined ? undefined : index.cards[row];
      },
      columns: index.columns,
      rowOf: index.rows.storeRows,
      rows: index.rows,
      snapshot: index.rows.snapshot(),
    };
  }

  /** Each visible product's content quality (0..1; 0 for a code not listed), as of `changeSeq`. */
  async qualityOf(store: { id: string; changeSeq: number }): Promise<(code: string) => number> {
    const index = await this.#index.current(store.id, { seq: store.changeSeq, key: 'cards' }, undefined);
    return (code) => {
      const row = index.rows.storeRows.get(code);
      return row === undefined || !index.rows.live[row] ? 0 : index.rows.quality[row];
    };
  }

  /** The change sequence this process's listing of a store follows at (undefined: not held here). */
  heldSeq(storeId: string): number | undefined {
    return this.#index.peek(storeId)?.seq;
  }

  close() {
    this.#index.close();
  }

  async #build(storeId: string): Promise<CardIndex> {
    // The sequence first: a change committed while reading is applied by the next follow.
    const seq = await this.deps.changeLog.latest(storeId);
    const values = storeValues(storeId);
    const index: CardIndex = {
      seq,
      key: 'cards',
      cards: [],
      // The store's attribute values and rows, shared with its other indexes.
      columns: new AttributeColumns(values),
      held: 0,
      rows: new ListingRows(storeRows(storeId), values.shared),
    };
    for await (const page of this.deps.products.pageAll(storeId, { visibleOnly: true }))
      for (const product of page) place(index, product.code, product);
    index.rows.pool.settle();
    return index;
  }

  async #follow(storeId: string, index: CardIndex, upTo: number): Promise<boolean> {
    if (upTo - index.seq > REBUILD_AFTER) return false;
    const changed = await this.deps.changeLog.changedKeys(storeId, index.seq, upTo, ['product']);
    if (!changed) return false;
    const codes = changed.get('product') ?? [];
    const visible = await this.deps.products.visibleByCodes(storeId, codes);
    for (const code of codes) place(index, code, undefined);
    for (const product of visible) place(index, product.code, product);
    index.seq = upTo;
    return true;
  }
}

/** Puts a visible product's card and attributes in the index, or (no record) takes it out. */
function place(index: CardIndex, code: string, product: ProductRecord | undefined) {
  if (product === undefined) {
    const row = index.rows.storeRows.get(code);
    if (row !== undefined && index.cards[row] !== undefined) {
      index.cards[row] = undefined;
      index.held--;
      index.columns.set(row, {});
      index.rows.set(code, undefined);
    }
    return;
  }
  const { attributes } = product;
  const row = index.rows.storeRows.add(code);
  // The attribute values first: the rows and the card take the store's copies of its strings.
  // A listing's Size is a size that can be bought: an out-of-stock SKU's size neither matches a
  // Size filter nor counts in the Size facet (its other attributes do).
  index.columns.set(row, isInStock(attributes) ? attributes : withoutSize(attributes));
  index.rows.set(code, product);
  const { pool } = index.rows;
  const name = attributes['Product Name'];
  const title = typeof name === 'string' && name.trim() !== '' ? pool.string(name) : code;
  const card = productCardOf(attributes);
  if (index.cards[row] === undefined) index.held++;
  // A colourway's sizes show the same card: one object for them (cards are never changed in place).
  const shown = pool.repeat('card', {
    title,
    parent_code: card.parent_code === null ? null : pool.string(card.parent_code),
    image_url: card.image_url === null ? null : pool.string(card.image_url),
    price: card.price,
    currency: card.currency,
  });
  setRow(index.cards, row, shown, undefined);
}

function withoutSize(attributes: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(attributes).filter(([name]) => name.trim().toLowerCase() !== 'size'));
}
