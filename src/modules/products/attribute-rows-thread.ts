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

// A large store's attribute rows read in a thread of their own, beside the process's event loop: at
// 1M products the read, parse and encoding take 8–9 s of CPU (15 s before the rows were placed from
// their listed rowids), which on the event loop was held back by (and held back) every request served
// meanwhile. One connection of its own, read only; one job.
const job = workerData as AttributeRowsJob;
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
