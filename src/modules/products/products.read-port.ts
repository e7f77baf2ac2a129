import { setImmediate as nextTurn } from 'node:timers/promises';
import type { Db, StorageHandle } from '../../storage/database.js';
import { productSummaryOf, type ProductSummary } from '../../catalog/product-summary.js';
import * as repo from './products.repository.js';

/** A stored product as other modules see it. */
export interface ProductRecord {
  code: string;
  status: string;
  parentCode: string | null;
  attributes: Record<string, unknown>;
  /** When the product was first stored (ISO 8601): the "newest" sort. */
  createdAt: string;
}

export type { ProductSummary };

const toRecord = (row: {
  product_code: string;
  status: string;
  parent_code: string | null;
  attributes: string;
  created_at: string;
}): ProductRecord => ({
  code: row.product_code,
  status: row.status,
  parentCode: row.parent_code,
  attributes: JSON.parse(row.attributes) as Record<string, unknown>,
  createdAt: String(row.created_at),
});

/**
 * The narrow read side of the products module that every other module goes through: no other
 * module queries the products tables. Each read takes an optional `db` so that a caller inside a
 * transaction (a change follower) reads what its transaction sees.
 */
export class ProductsReadPort {
  constructor(private readonly storage: StorageHandle) {}

  /** Products by code, any status (codes that do not exist are absent). */
  async attributesByCodes(
    storeId: string,
    codes: readonly string[],
    db: Db = this.storage.db,
  ): Promise<ProductRecord[]> {
    return codes.length === 0 ? [] : (await repo.findByCodes(db, storeId, codes, false)).map(toRecord);
  }

  /** Only the new and active ones among `codes`. */
  async visibleByCodes(storeId: string, codes: readonly string[], db: Db = this.storage.db): Promise<ProductRecord[]> {
    return codes.length === 0 ? [] : (await repo.findByCodes(db, storeId, codes, true)).map(toRecord);
  }

  async byCode(storeId: string, code: string): Promise<ProductRecord | undefined> {
    return (await this.attributesByCodes(storeId, [code]))[0];
  }

  /** The codes among `codes` that are visible. */
  async visibleCodes(storeId: string, codes: readonly string[]): Promise<Set<string>> {
    return codes.length === 0 ? new Set() : repo.findCodes(this.storage.db, storeId, codes, true);
  }

  /** The codes among `codes` that are stored, any status. */
  async existingCodes(storeId: string, codes: readonly string[]): Promise<Set<string>> {
    return codes.length === 0 ? new Set() : repo.findCodes(this.storage.db, storeId, codes, false);
  }

  /** Every product of a store (or only the visible ones), a page at a time in product_code order. */
  async *pageAll(
    storeId: string,
    options: { visibleOnly?: boolean; pageSize?: number; db?: Db } = {},
  ): AsyncGenerator<ProductRecord[]> {
    const limit = options.pageSize ?? 5000;
    for (let after = ''; ;) {
      const rows = await repo.pageByCode(options.db ?? this.storage.db, storeId, {
        after,
        limit,
        visibleOnly: options.visibleOnly ?? false,
      });
      if (rows.length > 0) yield rows.map(toRecord);
      if (rows.length < limit) return;
      after = rows[rows.length - 1].product_code;
      // SQLite's reads resolve at once: without a turn of the event loop between pages, a build over a
      // large store held every request for its whole length (a 300k store's listing: 10 s). Not inside
      // a caller's transaction: another request's write would then join it.
      if (!options.db) await nextTurn();
    }
  }

  /** Visible products whose product_code, then parent_code, equals `value` exactly. */
  async visibleByExactCode(
    storeId: string,
    value: string,
    limit: number,
  ): Promise<Array<{ code: string; title: string }>> {
    const rows = await repo.findVisibleByExactCode(this.storage.db, storeId, value, limit);
    return rows.map((row) => ({ code: row.product_code, title: row.title ?? row.product_code }));
  }

  /** Display fields in the order of `codes` (missing or, with visibleOnly, hidden products left out). */
  async summariesByCodes(
    storeId: string,
    codes: readonly string[],
    options: { visibleOnly: boolean },
  ): Promise<ProductSummary[]> {
    if (codes.length === 0) return [];
    const rows = await repo.findSummaries(this.storage.db, storeId, codes, options.visibleOnly);
    const byCode = new Map(rows.map((row) => [row.product_code, row]));
    return codes.flatMap((code) => {
      const row = byCode.get(code);
      if (!row) return [];
      return [productSummaryOf(row.product_code, JSON.parse(row.attributes) as Record<string, unknown>)];
    });
  }

  /** Codes among `codes` that are a product_code or a parent_code of a stored product. */
  knownParentCodes(storeId: string, codes: readonly string[], db: Db = this.storage.db): Promise<Set<string>> {
    return codes.length === 0 ? Promise.resolve(new Set()) : repo.findKnownParentCodes(db, storeId, codes);
  }
}
