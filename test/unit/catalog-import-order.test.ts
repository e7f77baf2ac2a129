import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, it } from 'node:test';
import { importCatalog, type Reject } from '../../src/modules/imports/catalog-import.js';
import type { ProductsService } from '../../src/modules/products/products.service.js';
import type { Store } from '../../src/modules/stores/store.js';

// A file import reads rows ahead and writes them in product_code order (pages of the code-keyed
// indexes shared by a batch's rows); what a merchant sees must not change: the last row of a code
// wins, rejects come in line order, progress reaches every row.

/** The products service's batch write, recorded: each batch's codes and the titles as stored after it. */
function recordingProducts() {
  const batches: string[][] = [];
  const stored = new Map<string, string>();
  /** Titles in the order they were written. */
  const writes: string[] = [];
  const products = {
    async importBatch(_store: Store, items: Record<string, unknown>[]) {
      const codes = items.map((item) => String(item.product_code));
      batches.push(codes);
      const error_info = [];
      const results = [];
      for (const [index, item] of items.entries()) {
        const code = String(item.product_code);
        if (code.startsWith('bad')) {
          error_info.push({ index, product_code: code, reason: 'invalid_product_code', details: 'refused' });
          continue;
        }
        results.push({
          product_code: code,
          outcome: stored.has(code) ? ('updated' as const) : ('inserted' as const),
          status: 'active' as const,
          problems: [],
        });
        stored.set(code, String(item['Product Name']));
        writes.push(String(item['Product Name']));
      }
      return {
        inserted: 0,
        updated: 0,
        unchanged: 0,
        failed: error_info.length,
        error_info,
        warnings: [],
        items: results,
      };
    },
  } as unknown as ProductsService;
  return { products, batches, stored, writes };
}

describe('catalog import order', () => {
  it('writes each read-ahead window in product_code order (the code as the mapping names it) with the last row of a code winning', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'vitrine-import-order-'));
    const file = path.join(dir, 'catalog.ndjson');
    // Line: code (as the file's "sku"), title. A code twice in one window and once more in the next.
    const lines: Array<[string | number, string]> = [
      ['m', 'm1'],
      ['bad-2', 'x'],
      ['c', 'c1'],
      ['a', 'a-first'],
      [7, 'seven'],
      ['a', 'a-second'],
      ['bad-1', 'y'],
      ['b', 'b1'],
      ['a', 'a-last'],
    ];
    fs.writeFileSync(file, lines.map(([sku, name]) => JSON.stringify({ sku, 'Product Name': name })).join('\n'));
    const store = { mappingProfile: { fields: { sku: 'product_code' }, required: [] } } as unknown as Store;
    const { products, batches, stored, writes } = recordingProducts();
    // The fake reads product_code; the real service maps the fields itself.
    const mapped = {
      importBatch: (s: Store, items: Record<string, unknown>[], o: never) =>
        products.importBatch(
          s,
          items.map(({ sku, ...rest }) => ({ product_code: sku, ...rest })),
          o,
        ),
    } as unknown as ProductsService;
    const rejects: Reject[] = [];
    const progress: number[] = [];
    const summary = await importCatalog(mapped, store, file, {
      format: 'ndjson',
      sortWindow: 6,
      onReject: (r) => rejects.push(r),
      onProgress: (rows) => progress.push(rows),
    });
    fs.rmSync(dir, { recursive: true, force: true });

    assert.deepEqual(batches, [
      ['7', 'a', 'a', 'bad-2', 'c', 'm'],
      ['a', 'b', 'bad-1'],
    ]);
    assert.deepEqual(
      writes.filter((title) => title.startsWith('a-')),
      ['a-first', 'a-second', 'a-last'],
      'rows of one code keep their file order (the last wins)',
    );
    assert.equal(stored.get('a'), 'a-last');
    assert.deepEqual(
      rejects.map((r) => [r.line, r.product_code]),
      [
        [2, 'bad-2'],
        [7, 'bad-1'],
      ],
    );
    assert.equal(summary.rows, 9);
    assert.equal(summary.failed, 2);
    assert.equal(progress.at(-1), 9, 'progress ends at every row');
  });

  it('sorts a file of many windows whole through runs on disk, and leaves no run behind', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'vitrine-import-spill-'));
    const runs = path.join(dir, 'runs');
    fs.mkdirSync(runs);
    const file = path.join(dir, 'catalog.ndjson');
    // Codes in no order over five windows of 4; "k" three times in three windows; two unreadable lines.
    const codes = ['q', 'k', 'bad-1', 'd', 'x', 'a', 'k', 'm', 'b', 'bad-0', 'z', 'c', 'k', 'e', 'f', 'g', 'h'];
    const lines = codes.map((code, i) => JSON.stringify({ product_code: code, 'Product Name': `${code}${i + 1}` }));
    lines.splice(5, 0, '{not json');
    lines.splice(12, 0, '[1]');
    fs.writeFileSync(file, lines.join('\n'));
    const { products, batches, stored, writes } = recordingProducts();
    const rejects: Reject[] = [];
    const progress: number[] = [];
    const summary = await importCatalog(products, {} as Store, file, {
      format: 'ndjson',
      sortWindow: 4,
      spillFrom: 1,
      tempDir: runs,
      onReject: (r) => rejects.push(r),
      onProgress: (rows) => progress.push(rows),
    });
    assert.deepEqual(fs.readdirSync(runs), [], 'the runs are removed');
    fs.rmSync(dir, { recursive: true, force: true });

    // One merged order over every window (BATCH holds them all here).
    assert.deepEqual(batches, [[...codes].sort()]);
    assert.deepEqual(
      writes.filter((title) => title.startsWith('k')),
      ['k2', 'k7', 'k13'],
      'rows of one code keep their file order (the last wins)',
    );
    assert.equal(stored.get('k'), 'k13');
    assert.deepEqual(
      rejects.map((r) => [r.line, r.reason]),
      // Unreadable lines as read; refused rows after, each batch's in file order.
      [
        [6, 'invalid_json'],
        [13, 'not_an_object'],
        [3, 'invalid_product_code'],
        [11, 'invalid_product_code'],
      ],
    );
    assert.equal(summary.rows, 19);
    assert.equal(summary.failed, 4);
    assert.equal(progress.at(-1), 19, 'progress ends at every row');
  });

  it('sorts a CSV file whole the same way (its rows serialized into the runs)', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'vitrine-import-spill-csv-'));
    const file = path.join(dir, 'catalog.csv');
    fs.writeFileSync(file, 'product_code,Product Name\nd,D\tone\nb,"B, two"\nc,C\na,A\nb,B last\n');
    const { products, batches, stored } = recordingProducts();
    const summary = await importCatalog(products, {} as Store, file, {
      format: 'csv',
      sortWindow: 2,
      spillFrom: 1,
      tempDir: dir,
    });
    assert.deepEqual(fs.readdirSync(dir), ['catalog.csv'], 'the runs are removed');
    fs.rmSync(dir, { recursive: true, force: true });
    assert.deepEqual(batches, [['a', 'b', 'b', 'c', 'd']]);
    assert.equal(stored.get('b'), 'B last');
    assert.equal(stored.get('d'), 'D\tone', 'a tab inside a value survives the run');
    assert.equal(summary.rows, 5);
  });
});
