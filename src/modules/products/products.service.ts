import { randomUUID } from 'node:crypto';
import type { StorageHandle } from '../../storage/database.js';
import { inTransaction } from '../../storage/transactions.js';
import type { ChangeEntry, ChangeFeed } from '../../jobs/change-feed.js';
import { InvalidInputError, NotFoundError, PayloadTooLargeError } from '../../errors.js';
import type { Store } from '../stores/store.js';
import {
  mergeFields,
  missingRequiredFields,
  normaliseItem,
  type ItemFailure,
  type ItemOutcome,
  type ProductItem,
} from './product-input.js';
import { qualityProblems, resolveStatus } from './quality-checks.js';
import type { ProductStatus } from '../../catalog/statuses.js';
import * as repo from './products.repository.js';
import { MAX_BATCH_ITEMS, MAX_DELETE_CODES, MAX_IMPORT_BATCH } from '../../catalog/limits.js';

export interface ProductWarning {
  product_code: string;
  reasons: string[];
}
export interface InsertDataResponse {
  inserted: number;
  updated: number;
  failed: number;
  error_info: ItemFailure[];
  warnings?: ProductWarning[];
}
export interface UpdateDataResponse {
  updated: number;
  failed: number;
  error_info: ItemFailure[];
  warnings?: ProductWarning[];
}

type WriteMode = 'upsert' | 'update';

/** Dedupes a batch: the last occurrence of a product_code wins and is counted once (CONTRACT §6). */
function lastOccurrences(outcomes: ItemOutcome[]) {
  const byCode = new Map<string, ItemOutcome>();
  const withoutCode: ItemFailure[] = [];
  for (const outcome of outcomes) {
    if (outcome.ok) byCode.set(outcome.item.code, outcome);
    else if (outcome.missingSku || outcome.failure.reason === 'invalid_product_code') withoutCode.push(outcome.failure);
    else byCode.set(outcome.failure.product_code, outcome);
  }
  const items: ProductItem[] = [];
  const failures = [...withoutCode];
  for (const outcome of byCode.values()) {
    if (outcome.ok) items.push(outcome.item);
    else failures.push(outcome.failure);
  }
  return { items, failures };
}

/** Product writes (create/upsert, partial update, delete): each valid item stored completely, in one transaction per batch. */
export class ProductsService {
  constructor(
    private readonly storage: StorageHandle,
    private readonly changes: ChangeFeed,
  ) {}

  async upsertProducts(store: Store, body: Record<string, unknown>[]): Promise<InsertDataResponse> {
    const { inserted, updated, failed, error_info, warnings } = await this.#write(store, body, 'upsert');
    return { inserted, updated, failed, error_info, ...(warnings.length ? { warnings } : {}) };
  }

  async updateProducts(store: Store, body: Record<string, unknown>[]): Promise<UpdateDataResponse> {
    const { updated, failed, error_info, warnings } = await this.#write(store, body, 'update');
    return { updated, failed, error_info, ...(warnings.length ? { warnings } : {}) };
  }

  /** The same validation, checks and change feed as POST /v1/products, for a batch of a file import. */
  async importBatch(store: Store, items: Record<string, unknown>[]) {
    return this.#write(store, items, 'upsert', MAX_IMPORT_BATCH);
  }

  async #write(store: Store, body: Record<string, unknown>[], mode: WriteMode, maxItems = MAX_BATCH_ITEMS) {
    if (body.length > maxItems)
      throw new PayloadTooLargeError(`at most ${maxItems} items per request, got ${body.length}`);
    const profile = store.mappingProfile;
    if (!profile) throw new NotFoundError('mapping profile not found', 'mapping');

    const outcomes = body.map((raw, index) => normaliseItem(raw, index, profile));
    const missingSku = outcomes.filter((o) => !o.ok && o.missingSku).length;
    const { items, failures } = lastOccurrences(outcomes);
    const codes = items.map((item) => item.code).sort();

    const result = await inTransaction(this.storage, async (trx) => {
      const now = new Date().toISOString();
      // Where writers run concurrently (PostgreSQL), new codes are claimed under the primary key first;
      // SQLite has one writer per transaction, so the locked read alone tells new from existing and
      // a new product is written once.
      const claimed =
        mode === 'upsert' && this.storage.dialect.supportsRowLocks
          ? await repo.claimNewCodes(trx, store.id, codes, now)
          : undefined;
      const existing = new Map(
        (codes.length ? await repo.lockProducts(trx, store.id, codes) : []).map((row) => [row.product_code, row]),
      );
      const fresh = claimed ?? new Set(mode === 'upsert' ? codes.filter((code) => !existing.has(code)) : []);

      const rows: repo.ProductRow[] = [];
      const problemsByCode = new Map<string, readonly string[]>();
      const entries: ChangeEntry[] = [];
      const itemFailures: ItemFailure[] = [];
      const warnings: ProductWarning[] = [];
      const abandoned: string[] = [];
      let inserted = 0;
      let updated = 0;

      for (const item of items.sort((a, b) => a.index - b.index)) {
        const isNew = fresh.has(item.code);
        const row = existing.get(item.code);
        const failItem = (reason: string, details: string) => {
          itemFailures.push({ index: item.index, product_code: item.code, reason, details });
          if (isNew) abandoned.push(item.code);
        };
        if (!row && !isNew) {
          failItem('not_found', `product ${item.code} does not exist`);
          continue;
        }
        const previous = isNew || !row ? undefined : (JSON.parse(row.attributes) as Record<string, unknown>);
        const fields = mergeFields(mode === 'update' ? previous : undefined, item.fields);
        const missing = missingRequiredFields(profile, fields);
        if (missing.length > 0) {
          failItem('missing_required_field', `required field(s) missing: ${missing.join(', ')}`);
          continue;
        }
        const problems = qualityProblems(fields);
        const resolved = resolveStatus({
          existing: isNew || !row ? undefined : (row.status as ProductStatus),
          requested: item.requestedStatus,
          problems,
        });
        if ('failure' in resolved) {
          failItem(resolved.failure, `cannot set Status active: ${problems.join(', ')}`);
          continue;
        }

        rows.push({
          store_id: store.id,
          product_code: item.code,
          parent_code: (fields.parent_code as string | undefined) ?? null,
          status: resolved.status,
          title: (fields['Product Name'] as string | undefined) ?? null,
          category: (fields.Category as string | undefined) ?? null,
          department: (fields.Department as string | undefined) ?? null,
          price: (fields['Selling Price'] as string | undefined) ?? null,
          currency: (fields.Currency as string | undefined) ?? null,
          attributes: JSON.stringify(fields),
          created_at: now,
          updated_at: now,
        });
        problemsByCode.set(item.code, problems);
        if (problems.length > 0) warnings.push({ product_code: item.code, reasons: problems });
        entries.push({ entity: 'product', key: item.code, op: isNew ? 'created' : 'updated', status: resolved.status });
        if (isNew) inserted++;
        else updated++;
      }

      await repo.deleteProducts(trx, store.id, abandoned);
      await repo.writeProducts(trx, rows);
      await repo.replaceProblems(trx, store.id, problemsByCode);
      if (missingSku > 0)
        await repo.recordSkuRejections(trx, {
          id: randomUUID(),
          store_id: store.id,
          rejected_at: now,
          count: missingSku,
        });
      await this.changes.append(trx, store.id, entries);
      return { inserted, updated, itemFailures, warnings };
    });

    const error_info = [...failures, ...result.itemFailures].sort((a, b) => a.index - b.index);
    return {
      inserted: result.inserted,
      updated: result.updated,
      failed: error_info.length,
      error_info,
      warnings: result.warnings,
    };
  }

  /** Deletes by product_code; codes that do not exist are reported, not an error (CONTRACT §6). */
  async deleteProducts(store: Store, codes: string[]): Promise<{ deleted: number; not_found: string[] }> {
    const unique = [...new Set(codes)];
    if (unique.length === 0)
      throw new InvalidInputError("query parameter 'sku_codes' must name at least one product code", 'sku_codes');
    if (unique.length > MAX_DELETE_CODES)
      throw new InvalidInputError(
        `query parameter 'sku_codes' names at most ${MAX_DELETE_CODES} codes per request`,
        'sku_codes',
      );
    return inTransaction(this.storage, async (trx) => {
      const found = new Set((await repo.existingCodes(trx, store.id, unique.sort())).map((row) => row.product_code));
      const doomed = unique.filter((code) => found.has(code));
      await repo.deleteProducts(trx, store.id, doomed);
      await this.changes.append(
        trx,
        store.id,
        doomed.map((key) => ({ entity: 'product', key, op: 'deleted', status: null })),
      );
      return { deleted: doomed.length, not_found: unique.filter((code) => !found.has(code)) };
    });
  }
}
