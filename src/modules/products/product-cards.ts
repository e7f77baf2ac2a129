import type { ChangeFeed } from '../../storage/change-feed.js';
import { LiveStoreIndex, type LiveIndex } from '../../storage/live-store-index.js';
import { productCardOf, type ProductCard } from '../../catalog/product-summary.js';
import type { ProductsReadPort } from './products.read-port.js';

interface CardIndex extends LiveIndex {
  cards: Map<string, ProductCard>;
}

/** Rough bytes of one card in memory (code, family, URL, map entry). */
const BYTES_PER_CARD = 250;
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
      sizeOf: (index) => 256 + index.cards.size * BYTES_PER_CARD,
      build: (storeId) => this.#build(storeId),
      follow: (storeId, index, target) => this.#follow(storeId, index, target.seq),
    });
  }

  /** The cards of `codes` as of the store's change sequence `changeSeq` (absent: not visible). */
  async cardsOf(store: { id: string; changeSeq: number }, codes: readonly string[]): Promise<Map<string, ProductCard>> {
    const index = await this.#index.current(store.id, { seq: store.changeSeq, key: 'cards' }, undefined);
    const found = new Map<string, ProductCard>();
    for (const code of codes) {
      const card = index.cards.get(code);
      if (card) found.set(code, card);
    }
    return found;
  }

  close() {
    this.#index.close();
  }

  async #build(storeId: string): Promise<CardIndex> {
    // The sequence first: a change committed while reading is applied by the next follow.
    const seq = await this.deps.changeLog.latest(storeId);
    const cards = new Map<string, ProductCard>();
    for await (const page of this.deps.products.pageAll(storeId, { visibleOnly: true }))
      for (const product of page) cards.set(product.code, productCardOf(product.attributes));
    return { seq, key: 'cards', cards };
  }

  async #follow(storeId: string, index: CardIndex, upTo: number): Promise<boolean> {
    const latest = upTo;
    if (latest - index.seq > REBUILD_AFTER) return false;
    const changed = await this.deps.changeLog.changedKeys(storeId, index.seq, latest, ['product']);
    if (!changed) return false;
    const codes = changed.get('product') ?? [];
    const visible = await this.deps.products.visibleByCodes(storeId, codes);
    for (const code of codes) index.cards.delete(code);
    for (const product of visible) index.cards.set(product.code, productCardOf(product.attributes));
    index.seq = latest;
    return true;
  }
}
