import { randomUUID } from 'node:crypto';
import { isDeepStrictEqual } from 'node:util';
import type { Db, StorageHandle } from '../../storage/database.js';
import { inTransaction } from '../../storage/transactions.js';
import type { ChangeEntry, ChangeFeed } from '../../storage/change-feed.js';
import { InvalidInputError, NotFoundError, PayloadTooLargeError } from '../../errors.js';
import type { Store } from '../stores/store.js';
import {
  mergeFields,
  missingRequiredFields,
  normaliseItem,
  PRECONDITION_FIELD,
  type ItemFailure,
  type ItemOutcome,
  type ProductItem,
} from './product-input.js';
import { qualityProblems } from './quality-checks.js';
import { resolveStatus, type ProductStatus } from '../../catalog/statuses.js';
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

/**
 * How a write treats what is stored: `replace` (POST) stores the item as given, `update` (PUT) lays
 * the given fields over the stored ones and fails unknown codes, `merge` (imports in merge mode) is
 * `update` that also creates what is new.
 */
export type WriteMode = 'replace' | 'update' | 'merge';

/** What one stored (or, in a dry run, planned) item came to. */
export interface ItemResult {
  product_code: string;
  outcome: 'inserted' | 'updated' | 'unchanged';
  status: ProductStatus;
  problems: readonly string[];
}

export interface BatchOptions {
  mode: WriteMode;
  /** Plan only: read what is stored and report what would happen, writing nothing. */
  dryRun?: boolean;
  /**
   * File imports read `Status: problem` (what an export writes for a product the checks hold back)
   * as "let the checks decide" instead of failing the row: an export imports back unchanged.
   */
  problemStatusMeansChecks?: boolean;
}

export interface BatchResult {
  inserted: number;
  updated: number;
  unchanged: number;
  failed: number;
  error_info: ItemFailure[];
  warnings: ProductWarning[];
  items: ItemResult[];
}

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

/** What a batch would write, computed from the stored rows before anything is written. */
interface BatchPlan {
  rows: repo.ProductRow[];
  problemsByCode: Map<string, readonly string[]>;
  entries: ChangeEntry[];
  itemFailures: ItemFailure[];
  warnings: ProductWarning[];
  items: ItemResult[];
}

/** What a plan is made against: the stored rows of the batch's codes, and the codes it creates. */
interface Known {
  existing: Map<string, repo.LockedProductRow>;
  fresh: Set<string>;
}

/** Product writes (create/upsert, partial update, delete): each valid item stored completely, in one transaction per batch. */
export class ProductsService {
  constructor(
    private readonly storage: StorageHandle,
    private readonly changes: ChangeFeed,
  ) {}

  /**
   * POST /v1/products. A product identical to what is stored writes nothing (no change-log entry, no
   * re-indexing) and counts as updated: the contract's response has no separate count for it.
   */
  async upsertProducts(store: Store, body: Record<string, unknown>[]): Promise<InsertDataResponse> {
    const { inserted, updated, unchanged, failed, error_info, warnings } = await this.#write(store, body, {
      mode: 'replace',
    });
    return { inserted, updated: updated + unchanged, failed, error_info, ...(warnings.length ? { warnings } : {}) };
  }

  /** PUT /v1/products: only the given fields change; an unchanged product counts as updated, as in POST. */
  async updateProducts(store: Store, body: Record<string, unknown>[]): Promise<UpdateDataResponse> {
    const { updated, unchanged, failed, error_info, warnings } = await this.#write(store, body, { mode: 'update' });
    return { updated: updated + unchanged, failed, error_info, ...(warnings.length ? { warnings } : {}) };
  }

  /** The same validation, checks and change feed as the API's writes, for a batch of a file import. */
  async importBatch(store: Store, items: Record<string, unknown>[], options: BatchOptions): Promise<BatchResult> {
    return this.#write(store, items, { ...options, problemStatusMeansChecks: true }, MAX_IMPORT_BATCH);
  }

  async #write(
    store: Store,
    body: Record<string, unknown>[],
    options: BatchOptions,
    maxItems = MAX_BATCH_ITEMS,
  ): Promise<BatchResult> {
    if (body.length > maxItems)
      throw new PayloadTooLargeError(`at most ${maxItems} items per request, got ${body.length}`);
    const profile = store.mappingProfile;
    if (!profile) throw new NotFoundError('mapping profile not found', 'mapping');

    const outcomes = body.map((raw, index) =>
      normaliseItem(raw, index, profile, { problemStatusMeansChecks: options.problemStatusMeansChecks }),
    );
    const missingSku = outcomes.filter((o) => !o.ok && o.missingSku).length;
    const { items, failures } = lastOccurrences(outcomes);
    items.sort((a, b) => a.index - b.index);
    const codes = items.map((item) => item.code).sort();
    const creates = options.mode !== 'update';

    const plan = options.dryRun
      ? this.#plan(store, items, options.mode, await this.#stored(this.storage.db, store, codes, options.mode))
      : await inTransaction(this.storage, async (trx) => {
          const now = new Date().toISOString();
          let planned: BatchPlan;
          let created = new Set<string>();
          if (creates && this.storage.dialect.supportsRowLocks) {
            // Writers run concurrently (PostgreSQL): every item is first inserted as a new product, on
            // conflict nothing, and the codes that come back are this transaction's creations. A
            // concurrent writer of the same code waits on the primary key, then finds the row and
            // updates it: inserted/updated counts stay exact and no code is stored twice. The rest are
            // locked and planned against what is stored; a new product is written once.
            const asNew = this.#plan(store, items, options.mode, { existing: new Map(), fresh: new Set(codes) }, now);
            created = await repo.insertNewProducts(trx, asNew.rows);
            // Not created and not stored (fresh in `rest`): an item that fails as a new product (its own
            // failure is reported), or a code a concurrent writer created and another deleted meanwhile.
            const rest = await this.#stored(
              trx,
              store,
              codes.filter((code) => !created.has(code)),
              options.mode,
            );
            planned = this.#plan(
              store,
              items,
              options.mode,
              { existing: rest.existing, fresh: new Set([...created, ...rest.fresh]) },
              now,
            );
          } else {
            // SQLite has one writer per transaction (and a PUT creates nothing): the locked read alone
            // tells new from existing.
            planned = this.#plan(store, items, options.mode, await this.#stored(trx, store, codes, options.mode), now);
          }
          await repo.writeProducts(
            trx,
            planned.rows.filter((row) => !created.has(row.product_code)),
          );
          await repo.replaceProblems(trx, store.id, planned.problemsByCode);
          if (missingSku > 0)
            await repo.recordSkuRejections(trx, {
              id: randomUUID(),
              store_id: store.id,
              rejected_at: now,
              count: missingSku,
            });
          await this.changes.append(trx, store.id, planned.entries);
          return planned;
        });

    const error_info = [...failures, ...plan.itemFailures].sort((a, b) => a.index - b.index);
    const count = (outcome: ItemResult['outcome']) => plan.items.filter((item) => item.outcome === outcome).length;
    return {
      inserted: count('inserted'),
      updated: count('updated'),
      unchanged: count('unchanged'),
      failed: error_info.length,
      error_info,
      warnings: plan.warnings,
      items: plan.items,
    };
  }

  /** The stored rows of the batch's codes (locked inside a write), and which codes the batch would create. */
  async #stored(db: Db, store: Store, codes: string[], mode: WriteMode): Promise<Known> {
    const rows = codes.length ? await repo.lockProducts(db, store.id, codes) : [];
    const existing = new Map(rows.map((row) => [row.product_code, row]));
    return { existing, fresh: new Set(mode === 'update' ? [] : codes.filter((code) => !existing.has(code))) };
  }

  /** Works out each item's stored fields, status and outcome against the stored rows. */
  #plan(
    store: Store,
    items: ProductItem[],
    mode: WriteMode,
    { existing, fresh }: Known,
    now = new Date().toISOString(),
  ): BatchPlan {
    const profile = store.mappingProfile!;
    const plan: BatchPlan = {
      rows: [],
      problemsByCode: new Map(),
      entries: [],
      itemFailures: [],
      warnings: [],
      items: [],
    };

    for (const item of items) {
      const isNew = fresh.has(item.code);
      const row = isNew ? undefined : existing.get(item.code);
      const failItem = (reason: string, details: string) =>
        plan.itemFailures.push({ index: item.index, product_code: item.code, reason, details });
      // The client's precondition: the product as it read it (its updated_at), or absent (null).
      if (item.ifUpdatedAt !== undefined && (row?.updated_at ?? null) !== item.ifUpdatedAt) {
        failItem(
          'conflict',
          row
            ? `product ${item.code} changed since it was read: updated_at is ${row.updated_at}, not ${item.ifUpdatedAt ?? 'absent (null)'}`
            : `product ${item.code} does not exist (${PRECONDITION_FIELD} ${item.ifUpdatedAt} expected it)`,
        );
        continue;
      }
      if (!row && !isNew) {
        failItem('not_found', `product ${item.code} does not exist`);
        continue;
      }
      const previous = row ? (JSON.parse(row.attributes) as Record<string, unknown>) : undefined;
      const fields = mergeFields(mode === 'replace' ? undefined : previous, item.fields);
      const missing = missingRequiredFields(profile, fields);
      if (missing.length > 0) {
        failItem('missing_required_field', `required field(s) missing: ${missing.join(', ')}`);
        continue;
      }
      const problems = qualityProblems(fields);
      const resolved = resolveStatus({
        existing: row ? (row.status as ProductStatus) : undefined,
        requested: item.requestedStatus,
        problems,
      });
      if ('failure' in resolved) {
        failItem(resolved.failure, `cannot set Status active: ${problems.join(', ')}`);
        continue;
      }
      if (problems.length > 0) plan.warnings.push({ product_code: item.code, reasons: problems });

      // The same fields and status as stored: nothing to write, nothing for the followers to redo.
      if (row && row.status === resolved.status && isDeepStrictEqual(previous, fields)) {
        plan.items.push({ product_code: item.code, outcome: 'unchanged', status: resolved.status, problems });
        continue;
      }
      plan.rows.push({
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
      plan.problemsByCode.set(item.code, problems);
      plan.entries.push({
        entity: 'product',
        key: item.code,
        op: isNew ? 'created' : 'updated',
        status: resolved.status,
        fields: changedFields(previous, fields, row?.status, resolved.status),
      });
      plan.items.push({
        product_code: item.code,
        outcome: isNew ? 'inserted' : 'updated',
        status: resolved.status,
        problems,
      });
    }
    return plan;
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
        doomed.map((key) => ({ entity: 'product', key, op: 'deleted', status: null, fields: [] })),
      );
      return { deleted: doomed.length, not_found: unique.filter((code) => !found.has(code)) };
    });
  }
}

/** The field names a write changes (all of them for a new product), `Status` when the status moves. */
export function changedFields(
  previous: Record<string, unknown> | undefined,
  next: Record<string, unknown>,
  previousStatus: string | undefined,
  nextStatus: string,
): string[] {
  const names = new Set<string>();
  for (const name of new Set([...Object.keys(previous ?? {}), ...Object.keys(next)]))
    if (!previous || !isDeepStrictEqual(previous[name], next[name])) names.add(name);
  if (previousStatus !== nextStatus) names.add('Status');
  return [...names].sort();
}
