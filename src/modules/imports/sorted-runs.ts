import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import readline from 'node:readline';
import { once } from 'node:events';
import TinyQueue from 'tinyqueue';

/** A row of a catalog file with its sort key: the product code it maps to and its line. */
export interface KeyedRow<T> {
  code: string;
  line: number;
  item: T;
}

/** Product code order; of two rows of a code the earlier line first (the later one is written last and wins). */
export function byCodeThenLine<T>(a: KeyedRow<T>, b: KeyedRow<T>): number {
  return a.code < b.code ? -1 : a.code > b.code ? 1 : a.line - b.line;
}

/**
 * A whole file's rows in product-code order while only one window of them is in memory (an external
 * merge sort): each window is sorted and written to a run file of its own, and the runs are read back
 * merged. The files live in a temporary folder removed by `dispose`; together they hold about as
 * much as the catalog file itself.
 */
export class SortedRuns<T> {
  readonly #dir: string;
  readonly #files: string[] = [];

  constructor(parent = os.tmpdir()) {
    this.#dir = fs.mkdtempSync(path.join(parent, 'vitrine-import-'));
  }

  /** Writes a window as one run (sorted here). */
  async add(rows: Array<KeyedRow<T>>): Promise<void> {
    rows.sort(byCodeThenLine);
    const file = path.join(this.#dir, `run-${this.#files.length}.ndjson`);
    const out = fs.createWriteStream(file);
    for (const row of rows)
      if (!out.write(`${JSON.stringify([row.code, row.line, row.item])}\n`)) await once(out, 'drain');
    out.end();
    await once(out, 'finish');
    this.#files.push(file);
  }

  /** Every row of every run, in product-code order (then line order). */
  async *merged(): AsyncGenerator<KeyedRow<T>> {
    const readers = this.#files.map((file) =>
      readline.createInterface({ input: fs.createReadStream(file), crlfDelay: Infinity })[Symbol.asyncIterator](),
    );
    const heads = new TinyQueue<{ row: KeyedRow<T>; run: number }>([], (a, b) => byCodeThenLine(a.row, b.row));
    const advance = async (run: number) => {
      const { value, done } = await readers[run].next();
      if (done) return;
      const [code, line, item] = JSON.parse(value) as [string, number, T];
      heads.push({ row: { code, line, item }, run });
    };
    try {
      for (let run = 0; run < readers.length; run++) await advance(run);
      while (heads.length > 0) {
        const { row, run } = heads.pop()!;
        yield row;
        await advance(run);
      }
    } finally {
      // Closes the files of runs not read to the end (a batch that failed).
      for (const reader of readers) await reader.return?.();
    }
  }

  dispose() {
    fs.rmSync(this.#dir, { recursive: true, force: true });
  }
}
