import fs from 'node:fs';
import { InvalidInputError } from '../../errors.js';
import { suggestMapping } from '../../catalog/header-synonyms.js';
import type { Store } from '../stores/store.js';
import type { ProductsService } from '../products/products.service.js';
import { mappedValue } from '../products/mapping-profile.js';
import type { ImportFormat } from '../../catalog/import-formats.js';
import { byCodeThenLine, SortedRuns, type KeyedRow } from './sorted-runs.js';
import { csvRows, detectDelimiter, firstLine, jsonRows, ndjsonRows } from './catalog-rows.js';

const BATCH = 2500;
/**
 * Rows are read this far ahead and written in product_code order, BATCH at a time. Files come in family
 * or feed order, random in code order, and each product goes into B-trees keyed by its code (the
 * primary key, the listing, status and parent indexes): past ~200k products each row of a batch dirtied
 * a page of each, written to SQLite's log at every commit (21 KB a row at 1M against 8.6 KB at 44k).
 * Sorted, a batch's rows share pages: a 1M import wrote 11 GB instead of 21 and ran at 16.1k rows/s instead
 * of 12.0k in the same hour (BENCHMARKS › Scale). 50,000 was no faster and held 60 MB more. Stable: of
 * two rows of a code the last still wins.
 */
const SORT_WINDOW = 25_000;
/**
 * A file of at least this many rows (estimated from its first window) is sorted whole: its windows
 * go to sorted runs on disk, merged back in code order. Windows alone still spread each batch over a
 * large store's B-trees: a 1M-row file into a new SQLite store wrote 11 GB at 24.2k rows/s; sorted
 * whole through runs, 3.0 GB at 27.8k (the same file already sorted: 2.6 GB at 38.0k, the runs' JSON
 * costing the difference), in the same hour.
 */
const SPILL_FROM = 100_000;

/**
 * CONTRACT §2's summary of an import (rows, inserted, updated, failed, failures, seconds), and what
 * a merchant needs next: rows identical to what is stored (`unchanged`, nothing written), the
 * imported products by resulting status, their quality-check reasons (most frequent first) and one
 * line saying what to fix.
 */
export interface ImportSummary {
  rows: number;
  inserted: number;
  updated: number;
  unchanged: number;
  failed: number;
  /** Rejected rows by reason. */
  failures: Record<string, number>;
  /** The imported products by the status they ended in. */
  statuses: Record<string, number>;
  /** Quality-check reasons of the imported products that fail a check, most frequent first. */
  problems: Record<string, number>;
  /** What to fix, in one line, when imported products are held back in `problem` or no row was accepted; else null. */
  hint: string | null;
  /**
   * When no row was accepted and the file's columns look like catalog fields under other names: the
   * `fields` of a mapping profile that would read them (Product_ID → product_code, …); else null.
   */
  suggested_mapping: Record<string, string> | null;
  mode: ImportMode;
  dry_run: boolean;
  seconds: number;
}

/** `replace` (default): each row is the whole product, as POST /v1/products. `merge`: only the row's fields change, as PUT, creating what is new. */
export type ImportMode = 'replace' | 'merge';
export const IMPORT_MODES: readonly ImportMode[] = ['replace', 'merge'];

const count = (n: number) => n.toLocaleString('en-US');

/** The one line an import ends with when products are held back: how many, why, where to read more. */
export function importHint(
  summary: Pick<
    ImportSummary,
    'statuses' | 'problems' | 'dry_run' | 'rows' | 'failed' | 'failures' | 'suggested_mapping'
  >,
): string | null {
  // Not one row accepted: most likely not a catalog, or a header the mapping profile does not know.
  if (summary.rows > 0 && summary.failed === summary.rows) {
    const reasons = Object.entries(summary.failures)
      .sort((a, b) => b[1] - a[1])
      .slice(0, 3)
      .map(([reason, n]) => `${reason} ${count(n)}`)
      .join(', ');
    if (summary.suggested_mapping)
      return `no row was accepted (${reasons}): the columns look like catalog fields under other names; a mapping profile {"fields": ${JSON.stringify(summary.suggested_mapping)}, "required": []} would read them (vitrine mapping set, or PUT /admin/v1/stores/{store_uuid}/mapping), then import again`;
    return `no row was accepted (${reasons}): is this a catalog file, with a header naming product_code (or a column the store's mapping profile maps to it)?`;
  }
  const held = summary.statuses.problem ?? 0;
  if (held === 0) return null;
  const reasons = Object.entries(summary.problems)
    .slice(0, 3)
    .map(([reason, n]) => `${reason} ${count(n)}`)
    .join(', ');
  const verb = summary.dry_run ? 'would be' : held === 1 ? 'is' : 'are';
  return `${count(held)} product${held === 1 ? '' : 's'} ${verb} in \`problem\`: ${reasons} — see README › Quality checks`;
}

/** A rejected row: its line (CSV, NDJSON) or position (JSON array), why, and the row as read. */
export interface Reject {
  line: number;
  product_code: string | null;
  reason: string;
  details: string;
  row?: unknown;
}

export interface ImportOptions {
  format: ImportFormat;
  mode?: ImportMode;
  /** Report what would be inserted, updated, unchanged or rejected without writing anything. */
  dryRun?: boolean;
  delimiter?: string;
  encoding?: BufferEncoding;
  /** Called with each rejected row (e.g. to write the --rejects file). */
  onReject?: (reject: Reject) => void;
  /** Called after each batch with the rows written and bytes read so far, and the file's size. */
  onProgress?: (rows: number, bytesRead: number, totalBytes: number) => void;
  /** Rows read ahead and written in product_code order (tests set it small); SORT_WINDOW by default. */
  sortWindow?: number;
  /** Rows from which a file is sorted whole through runs on disk (tests set it small); SPILL_FROM by default. */
  spillFrom?: number;
  /** Where the sorted runs of a large file go (the system's temporary folder by default). */
  tempDir?: string;
}

/**
 * Streams a catalog file through the store's mapping profile and exactly the product write path
 * of POST /v1/products, a transaction per batch of 2,500 rows written in code order (read SORT_WINDOW
 * ahead; a large file sorted whole through runs on disk): memory stays flat whatever the file size, an
 * interruption leaves every row fully imported or not at all, and a re-run completes it.
 */
export async function importCatalog(
  products: ProductsService,
  store: Store,
  path: string,
  options: ImportOptions,
): Promise<ImportSummary> {
  const started = performance.now();
  const mode = options.mode ?? 'replace';
  const dryRun = options.dryRun ?? false;
  const summary: ImportSummary = {
    rows: 0,
    inserted: 0,
    updated: 0,
    unchanged: 0,
    failed: 0,
    failures: {},
    statuses: {},
    problems: {},
    hint: null,
    suggested_mapping: null,
    mode,
    dry_run: dryRun,
    seconds: 0,
  };
  // A dry run writes nothing, so a code met again in a later batch still reads as new there: the
  // codes it planned to insert are remembered to count that second row as an update.
  const plannedInserts = dryRun ? new Set<string>() : undefined;
  const reject = (r: Reject) => {
    summary.failed++;
    summary.failures[r.reason] = (summary.failures[r.reason] ?? 0) + 1;
    options.onReject?.(r);
  };
  const totalBytes = fs.statSync(path).size;
  if (totalBytes === 0) throw new InvalidInputError('the file is empty', 'file');
  const delimiter = options.format === 'csv' ? (options.delimiter ?? detectDelimiter(await firstLine(path))) : ',';
  const source = fs.createReadStream(path);
  const rows =
    options.format === 'csv'
      ? csvRows(source, options, delimiter)
      : options.format === 'ndjson'
        ? ndjsonRows(source)
        : jsonRows(source);

  // The rows read ahead, up to sortWindow; past the first windows of a large file, runs on disk.
  const sortWindow = options.sortWindow ?? SORT_WINDOW;
  const spillFrom = options.spillFrom ?? SPILL_FROM;
  let window: Array<KeyedRow<Record<string, unknown>>> = [];
  let runs: SortedRuns<Record<string, unknown>> | undefined;
  let written = 0;
  // The first row's field names: a suggested mapping when no row is accepted.
  let columns: string[] | undefined;
  const profile = store.mappingProfile;
  const codeOf = (item: Record<string, unknown>) => {
    const code = profile ? mappedValue(profile, item, 'product_code') : item.product_code;
    return typeof code === 'string' ? code : typeof code === 'number' ? String(code) : '';
  };
  const writeBatch = async (batch: Array<KeyedRow<Record<string, unknown>>>): Promise<Reject[]> => {
    const result = await products.importBatch(
      store,
      batch.map((row) => row.item),
      { mode, dryRun },
    );
    for (const item of result.items) {
      let outcome = item.outcome;
      if (plannedInserts && outcome === 'inserted') {
        if (plannedInserts.has(item.product_code)) outcome = 'updated';
        else plannedInserts.add(item.product_code);
      }
      summary[outcome]++;
      summary.statuses[item.status] = (summary.statuses[item.status] ?? 0) + 1;
      for (const reason of item.problems) summary.problems[reason] = (summary.problems[reason] ?? 0) + 1;
    }
    return result.error_info.map((failure) => {
      const row = batch[failure.index];
      return {
        line: row.line,
        product_code: failure.product_code || null,
        reason: failure.reason,
        details: failure.details,
        row: row.item,
      };
    });
  };
  /** Writes rows in the order given, BATCH a transaction; each batch's rejects in file order. */
  const writeInOrder = async (
    ordered: Iterable<KeyedRow<Record<string, unknown>>> | AsyncIterable<KeyedRow<Record<string, unknown>>>,
    progress: () => void,
  ) => {
    let batch: Array<KeyedRow<Record<string, unknown>>> = [];
    const write = async () => {
      const failures = await writeBatch(batch);
      written += batch.length;
      batch = [];
      for (const failure of failures.sort((a, b) => a.line - b.line)) reject(failure);
      progress();
    };
    for await (const row of ordered) {
      batch.push(row);
      if (batch.length >= BATCH) await write();
    }
    if (batch.length > 0) await write();
  };
  const flush = async () => {
    if (window.length === 0) return;
    const sorted = window.sort(byCodeThenLine);
    window = [];
    const read = summary.rows;
    const before = written;
    // Progress counts rows written; the bytes are those read, less the share still ahead in the window.
    await writeInOrder(sorted, () => {
      const done = read - (sorted.length - (written - before));
      options.onProgress?.(done, Math.round((source.bytesRead * done) / read), totalBytes);
    });
  };
  // A file of many windows is sorted whole (SPILL_FROM): its first window tells its size in rows.
  let spills: boolean | undefined;
  try {
    for await (const row of rows) {
      summary.rows++;
      if (!columns && row.item) columns = Object.keys(row.item);
      if (row.reject) reject({ line: row.line, ...row.reject });
      else window.push({ code: codeOf(row.item!), line: row.line, item: row.item! });
      if (window.length < sortWindow) continue;
      spills ??= !dryRun && (totalBytes / Math.max(1, source.bytesRead)) * summary.rows >= spillFrom;
      if (spills) runs ??= new SortedRuns(options.tempDir);
      if (!runs) await flush();
      else {
        await runs.add(window);
        window = [];
        // Reading and sorting is the first half of the work; nothing is written yet.
        options.onProgress?.(0, Math.round(source.bytesRead / 2), totalBytes);
      }
    }
    if (!runs) await flush();
    else {
      await runs.add(window);
      window = [];
      const readRejects = summary.failed;
      await writeInOrder(runs.merged(), () => {
        const done = readRejects + written;
        options.onProgress?.(done, Math.round(totalBytes / 2 + (totalBytes * done) / summary.rows / 2), totalBytes);
      });
    }
  } finally {
    source.destroy();
    runs?.dispose();
  }
  summary.problems = Object.fromEntries(Object.entries(summary.problems).sort((a, b) => b[1] - a[1]));
  if (summary.rows > 0 && summary.failed === summary.rows && columns)
    summary.suggested_mapping = suggestMapping(columns);
  summary.hint = importHint(summary);
  summary.seconds = Math.round((performance.now() - started) / 10) / 100;
  return summary;
}
