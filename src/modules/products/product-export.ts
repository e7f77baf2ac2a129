import { setImmediate as nextTurn } from 'node:timers/promises';
import { stringify } from 'csv-stringify/sync';
import type { StorageHandle } from '../../storage/database.js';
import { CANONICAL_FIELDS } from '../../catalog/product-fields.js';
import type { Store } from '../stores/store.js';
import * as repo from './products.repository.js';

export type ExportFormat = 'ndjson' | 'csv';
export const EXPORT_FORMATS: readonly ExportFormat[] = ['ndjson', 'csv'];

const PAGE = 1000;

/** A product as an import reads it: its code, every attribute, and `Status` (the stored status). */
export function exportRecord(row: { product_code: string; status: string; attributes: string }) {
  return {
    product_code: row.product_code,
    ...(JSON.parse(row.attributes) as Record<string, unknown>),
    Status: row.status,
  };
}

/** A CSV cell: text as it is, numbers and booleans in their JSON spelling, lists and objects as JSON. */
function cell(value: unknown): string {
  if (value === undefined || value === null) return '';
  return typeof value === 'string' ? value : JSON.stringify(value);
}

/**
 * Streams a store's products for `GET /v1/products/export` and `vitrine export`: pages of 1,000 by
 * product_code (keyset, so memory stays flat and each page is one index range), each page one
 * string of lines. NDJSON keeps every JSON value as it is; CSV needs its columns first, so it reads
 * the attribute names in a first pass (names only are kept).
 */
export class ProductExport {
  /** Exports in progress in this process (a client that goes away ends its export). */
  active = 0;

  constructor(private readonly storage: StorageHandle) {}

  async *pages(store: Store, options: { format: ExportFormat; status?: string }): AsyncGenerator<string> {
    this.active++;
    try {
      if (options.format === 'ndjson') {
        for await (const rows of this.#rows(store, options.status))
          yield rows.map((row) => `${JSON.stringify(exportRecord(row))}\n`).join('');
        return;
      }
      const columns = await this.#columns(store, options.status);
      yield stringify([columns]);
      for await (const rows of this.#rows(store, options.status)) {
        const records = rows.map((row) => {
          const record = exportRecord(row) as Record<string, unknown>;
          return columns.map((column) => cell(record[column]));
        });
        yield stringify(records);
      }
    } finally {
      this.active--;
    }
  }

  async *#rows(store: Store, status: string | undefined) {
    let after = '';
    for (;;) {
      const rows = await repo.pageForExport(this.storage.db, store.id, { after, status, limit: PAGE });
      if (rows.length === 0) return;
      yield rows;
      if (rows.length < PAGE) return;
      after = rows[rows.length - 1].product_code;
      // SQLite's reads resolve at once: the pass that gathers the columns (every product of a 1M
      // store) would otherwise hold every other request until it ends.
      await nextTurn();
    }
  }

  /** product_code, the canonical fields in their order, the other attributes by name, Status last. */
  async #columns(store: Store, status: string | undefined): Promise<string[]> {
    const names = new Set<string>();
    for await (const rows of this.#rows(store, status))
      for (const row of rows) for (const name of Object.keys(JSON.parse(row.attributes) as object)) names.add(name);
    const canonical = CANONICAL_FIELDS.filter((name) => names.has(name) && name !== 'product_code');
    const others = [...names].filter((name) => !(CANONICAL_FIELDS as readonly string[]).includes(name)).sort();
    return ['product_code', ...canonical, ...others, 'Status'];
  }
}
