import os from 'node:os';
import { parentPort, workerData } from 'node:worker_threads';
import { ValueDictionary } from '../../catalog/attribute-columns.js';
import { openDatabase } from '../../storage/database.js';
import { postedRows, readAttributeRows } from './attribute-rows.js';
import type { CodeRange } from './storage-order.js';

/** What the thread is asked to read (attribute-index.ts starts it). */
export interface AttributeRowsJob {
  url: string;
  schema?: string;
  storeId: string;
  /** The codes this thread reads (another reads the rest). */
  range: CodeRange;
  distinctCheckAt?: number;
}

/**
 * The thread's nice value: two builds (a half of the codes each) took both cores from a 1M store's
 * console views, whose code-or-name filter went from 250 to 390 ms at the median.
 */
const BUILD_NICENESS = 10;

// A large store's attribute rows read in a thread of their own, beside the process's event loop: at
// 1M products the read, parse and encoding take 15 s of CPU, which on the event loop was held back by
// (and held back) every request served meanwhile. One connection of its own, read only; one job.
const job = workerData as AttributeRowsJob;
// Below the event loop's priority, so that the requests served meanwhile keep their core: on Linux
// a nice value is a thread's own (setpriority(2)); elsewhere it would be the whole process's.
if (process.platform === 'linux') os.setPriority(BUILD_NICENESS);
const storage = openDatabase(job.url, { schema: job.schema, poolSize: 1, readOnly: true });
try {
  const rows = await readAttributeRows(storage, job.storeId, new ValueDictionary(), {
    distinctCheckAt: job.distinctCheckAt,
    yieldEachPage: false,
    range: job.range,
  });
  const { posted, transfer } = postedRows(rows);
  parentPort!.postMessage({ rows: posted }, transfer);
} catch (error) {
  parentPort!.postMessage({ failure: (error as Error).message });
} finally {
  await storage.close();
}
