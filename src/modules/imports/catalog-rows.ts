import fs from 'node:fs';
import readline from 'node:readline';
import type { Readable } from 'node:stream';
import { parse as parseCsv } from 'csv-parse';
import chain from 'stream-chain';
import { parser as jsonParser } from 'stream-json';
import { streamArray } from 'stream-json/streamers/stream-array.js';
import { InvalidInputError } from '../../errors.js';
import type { ImportOptions, Reject } from './catalog-import.js';

// A catalog file's rows as read (CSV, NDJSON, a JSON array): each an object with its line, or a
// reject naming why it cannot be read. The import decides what to do with them (catalog-import.ts).

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

export async function firstLine(path: string): Promise<string> {
  const stream = fs.createReadStream(path, { start: 0, end: 64 * 1024 - 1, encoding: 'latin1' });
  let text = '';
  for await (const chunk of stream) text += chunk;
  return text.split(/\r?\n/)[0] ?? '';
}

export interface Row {
  line: number;
  item?: Record<string, unknown>;
  reject?: Omit<Reject, 'line'>;
}

export async function* csvRows(source: Readable, options: ImportOptions, delimiter: string): AsyncGenerator<Row> {
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

export async function* ndjsonRows(source: Readable): AsyncGenerator<Row> {
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

export async function* jsonRows(source: Readable): AsyncGenerator<Row> {
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
