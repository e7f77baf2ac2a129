// Bulk writes of the console: many products changed through the public API in batches of 100 (its
// limit), with progress, every item's failure kept, and what is needed to undo the action.
import { call, type Product } from './api';

export const BATCH = 100;
/** Fields the API sets itself: never written back. */
const SYSTEM = new Set(['product_code', 'status', 'problems', 'created_at', 'updated_at']);

export interface ItemFailure {
  product_code: string;
  reason: string;
  details: string;
}
export interface BulkOutcome {
  done: number;
  failures: ItemFailure[];
}
interface WriteAnswer {
  failed: number;
  error_info: Array<{ index: number; product_code: string; reason: string; details: string }>;
}

/** Splits a pasted block (a spreadsheet's cells: rows by newline, columns by tab) into rows of cells. */
export function pastedCells(text: string): string[][] {
  const rows = text.replace(/\r\n?/g, '\n').split('\n');
  if (rows.length > 1 && rows[rows.length - 1] === '') rows.pop();
  return rows.map((row) => row.split('\t'));
}

/**
 * Sends `items` to a product write in batches of BATCH, one after another (the page stays
 * responsive between them), reporting progress; an answer's per-item failures are collected.
 */
export async function writeInBatches(
  storeId: string,
  method: 'PUT' | 'POST',
  items: Array<Record<string, unknown>>,
  onProgress: (done: number, total: number) => void,
): Promise<BulkOutcome> {
  const failures: ItemFailure[] = [];
  let done = 0;
  onProgress(0, items.length);
  for (let i = 0; i < items.length; i += BATCH) {
    const batch = items.slice(i, i + BATCH);
    const answer = await call<WriteAnswer>('/v1/products', { method, query: { store_uuid: storeId }, json: batch });
    for (const info of answer.error_info)
      failures.push({ product_code: info.product_code, reason: info.reason, details: info.details });
    done += batch.length - answer.failed;
    onProgress(Math.min(i + BATCH, items.length), items.length);
  }
  return { done, failures };
}

/** Deletes products in batches (DELETE /v1/products, sku_codes comma-separated). */
export async function deleteInBatches(
  storeId: string,
  codes: string[],
  onProgress: (done: number, total: number) => void,
): Promise<BulkOutcome> {
  const failures: ItemFailure[] = [];
  let done = 0;
  onProgress(0, codes.length);
  for (let i = 0; i < codes.length; i += BATCH) {
    const batch = codes.slice(i, i + BATCH);
    const answer = await call<{ deleted: number; not_found: string[] }>('/v1/products', {
      method: 'DELETE',
      query: { store_uuid: storeId, sku_codes: batch.join(',') },
    });
    done += answer.deleted;
    for (const code of answer.not_found)
      failures.push({ product_code: code, reason: 'not_found', details: `product ${code} no longer exists` });
    onProgress(Math.min(i + BATCH, codes.length), codes.length);
  }
  return { done, failures };
}

/** Every product the filter matches, 1,000 per request (the products screen's filters). */
export async function allMatching(
  storeId: string,
  filter: { status: string; reason: string; q: string; filters: string },
  onProgress: (read: number, total: number) => void,
): Promise<Product[]> {
  const products: Product[] = [];
  for (let offset = 0; ; offset += 1000) {
    const page = await call<{ total: number; products: Product[] }>('/v1/products', {
      query: { store_uuid: storeId, ...filter, offset, limit: 1000 },
    });
    products.push(...page.products);
    onProgress(products.length, page.total);
    if (page.products.length < 1000 || products.length >= page.total) return products;
  }
}

/** A product as a create body (POST): its attributes and, where one may set it, its status. */
export function recreateBody(product: Product): Record<string, unknown> {
  const body: Record<string, unknown> = { product_code: product.product_code };
  for (const [name, value] of Object.entries(product)) if (!SYSTEM.has(name)) body[name] = value;
  if (product.status !== 'problem') body.Status = product.status;
  return body;
}

/**
 * The writes that put back `fields` (and the status when `status`) of `before` as they were: a
 * field that was absent is removed (null). A `problem` status is the quality checks' to set: left out.
 */
export function restoreBody(before: Product, fields: string[], status = false): Record<string, unknown> {
  const body: Record<string, unknown> = { product_code: before.product_code };
  for (const field of fields) body[field] = before[field] ?? null;
  if (status && before.status !== 'problem') body.Status = before.status;
  return body;
}
