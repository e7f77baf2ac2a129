import fs from 'node:fs';
import readline from 'node:readline';
import type { Readable } from 'node:stream';
import { parse as parseCsv } from 'csv-parse';
import chain from 'stream-chain';
import { parser as jsonParser } from 'stream-json';
import { streamArray } from 'stream-json/streamers/stream-array.js';
import { InvalidInputError } from '../../errors.js';
import { suggestMapping } from '../../catalog/header-synonyms.js';
import type { Store } from '../stores/store.js';
import type { ProductsService } from '../products/products.service.js';
import { mappedValue } from '../products/mapping-profile.js';
import type { ImportFormat } from '../../catalog/import-formats.js';

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
}

/** The most frequent of , ; tab | outside quotes on the header line. */
export function detectDelimiter(headerLine: string): string {
  const counts = new Map<string, number>([
    [',', 0],
    [';', 0],
    ['\t', 0],
    ['|', 0],
  ]);
  let quoted = false;
  for (const char of headerLine) {
    if (char === '"') quoted = !quoted;
    else if (!quoted && counts.has(char)) counts.set(char, counts.get(char)! + 1);
  }
  return [...counts].sort((a, b) => b[1] - a[1])[0][1] > 0 ? [...counts].sort((a, b) => b[1] - a[1])[0][0] : ',';
}

async function firstLine(path: string): Promise<string> {
  const stream = fs.createReadStream(path, { start: 0, end: 64 * 1024 - 1, encoding: 'latin1' });
  let text = '';
  for await (const chunk of stream) text += chunk;
  return text.split(/\r?\n/)[0] ?? '';
}

interface Row {
  line: number;
  item?: Record<string, unknown>;
  reject?: Omit<Reject, 'line'>;
}

async function* csvRows(source: Readable, options: ImportOptions, delimiter: string): AsyncGenerator<Row> {
  // Quotes inside unquoted fields are kept as text (real exports have them); a record that still
  // cannot be parsed becomes a reject with its line instead of ending the import.
  const records = source.pipe(
    parseCsv({
      bom: true,
      delimiter,
      relax_column_count: true,
      relax_quotes: true,
      skip_records_with_error: true,
      skip_empty_lines: true,
      info: true,
      encoding: options.encoding ?? 'utf8',
    }),
  );
  const skipped: Row[] = [];
  records.on('skip', (error: Error & { lines?: number }) => {
    skipped.push({
      line: error.lines ?? 0,
      reject: { product_code: null, reason: 'malformed_csv', details: error.message },
    });
  });
  let header: string[] | undefined;
  for await (const { record, info } of records as AsyncIterable<{ record: string[]; info: { lines: number } }>) {
    while (skipped.length > 0) yield skipped.shift()!;
    if (!header) {
      header = record.map((name) => name.trim());
      if (header.every((name) => name === '')) throw new InvalidInputError('the header row is empty', 'file');
      continue;
    }
    const line = info.lines;
    if (record.length !== header.length) {
      yield {
        line,
        reject: {
          product_code: record[0] ?? null,
          reason: 'field_count',
          details: `expected ${header.length} fields, got ${record.length} (unquoted delimiter in a value?)`,
          row: record,
        },
      };
      continue;
    }
    if (record.some((value) => value.includes('\uFFFD'))) {
      yield {
        line,
        reject: {
          product_code: record[0] ?? null,
          reason: 'invalid_encoding',
          details: `not valid ${options.encoding ?? 'utf-8'} text (use --encoding)`,
          row: record,
        },
      };
      continue;
    }
    // Empty cells are absent fields, as in a spreadsheet.
    const item: Record<string, unknown> = {};
    header.forEach((name, i) => {
      if (name !== '' && record[i] !== '') item[name] = record[i];
    });
    yield { line, item };
  }
  yield* skipped;
  if (!header) throw new InvalidInputError('the file is empty: a CSV needs a header row', 'file');
}

async function* ndjsonRows(source: Readable): AsyncGenerator<Row> {
  let line = 0;
  for await (const text of readline.createInterface({ input: source, crlfDelay: Infinity })) {
    line++;
    if (text.trim() === '') continue;
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch (error) {
      yield {
        line,
        reject: {
          product_code: null,
          reason: 'invalid_json',
          details: (error as Error).message,
          row: text.slice(0, 1000),
        },
      };
      continue;
    }
    if (!value || typeof value !== 'object' || Array.isArray(value))
      yield {
        line,
        reject: { product_code: null, reason: 'not_an_object', details: 'each line must be a JSON object', row: value },
      };
    else yield { line, item: value as Record<string, unknown> };
  }
}

async function* jsonRows(source: Readable): AsyncGenerator<Row> {
  const pipeline = chain([source, jsonParser(), streamArray()]);
  try {
    for await (const { key, value } of pipeline as AsyncIterable<{ key: number; value: unknown }>) {
      if (!value || typeof value !== 'object' || Array.isArray(value))
        yield {
          line: key + 1,
          reject: {
            product_code: null,
            reason: 'not_an_object',
            details: 'each array item must be a JSON object',
            row: value,
          },
        };
      else yield { line: key + 1, item: value as Record<string, unknown> };
    }
  } catch (error) {
    throw new InvalidInputError(
      `the JSON file must be one array of product objects: ${(error as Error).message}`,
      'file',
    );
  }
}

/**
 * Streams a catalog file through the store's mapping profile and exactly the product write path
 * of POST /v1/products, a transaction per batch of 2,500 rows (read SORT_WINDOW ahead, written in code
 * order): memory stays flat whatever the file size, an interruption leaves every row fully imported or
 * not at all, and a re-run completes it.
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

  // The rows read ahead, up to sortWindow.
  const sortWindow = options.sortWindow ?? SORT_WINDOW;
  let window: Row[] = [];
  // The first row's field names: a suggested mapping when no row is accepted.
  let columns: string[] | undefined;
  const profile = store.mappingProfile;
  const codeOf = (row: Row) => {
    const code = profile ? mappedValue(profile, row.item!, 'product_code') : row.item!.product_code;
    return typeof code === 'string' ? code : typeof code === 'number' ? String(code) : '';
  };
  const writeBatch = async (batch: Row[]) => {
    const result = await products.importBatch(
      store,
      batch.map((row) => row.item!),
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
  const flush = async () => {
    if (window.length === 0) return;
    const keyed = window.map((row) => ({ row, code: codeOf(row) }));
    keyed.sort((a, b) => (a.code < b.code ? -1 : a.code > b.code ? 1 : 0));
    const sorted = keyed.map((k) => k.row);
    const read = summary.rows;
    const failures: Reject[] = [];
    window = [];
    try {
      for (let at = 0; at < sorted.length; at += BATCH) {
        const batch = sorted.slice(at, at + BATCH);
        failures.push(...(await writeBatch(batch)));
        // Progress counts rows written; the bytes are those read, less the share still ahead in the window.
        const pending = sorted.length - at - batch.length;
        options.onProgress?.(read - pending, Math.round((source.bytesRead * (read - pending)) / read), totalBytes);
      }
    } finally {
      // The window's rejects in file order (those of the batches written, should a later one fail).
      for (const failure of failures.sort((a, b) => a.line - b.line)) reject(failure);
    }
  };
  try {
    for await (const row of rows) {
      summary.rows++;
      if (!columns && row.item) columns = Object.keys(row.item);
      if (row.reject) reject({ line: row.line, ...row.reject });
      else window.push(row);
      if (window.length >= sortWindow) await flush();
    }
    await flush();
  } finally {
    source.destroy();
  }
  summary.problems = Object.fromEntries(Object.entries(summary.problems).sort((a, b) => b[1] - a[1]));
  if (summary.rows > 0 && summary.failed === summary.rows && columns)
    summary.suggested_mapping = suggestMapping(columns);
  summary.hint = importHint(summary);
  summary.seconds = Math.round((performance.now() - started) / 10) / 100;
  return summary;
}
