import { parentPort, workerData } from 'node:worker_threads';
import { ValueDictionary } from '../../catalog/attribute-columns.js';
import { openDatabase } from '../../storage/database.js';
import { byteOrder, emptyRows, heartbeatNow, postedRows, readRangeInto } from './attribute-rows.js';
import type { CodeRange } from './storage-order.js';

/** What a thread is asked to read (attribute-index.ts starts it). */
export interface AttributeRowsJob {
  url: string;
  schema?: string;
  storeId: string;
  /** The store's codes cut into ranges, in code order; the threads of one build share them. */
  chunks: CodeRange[];
  /** How many chunks the build's threads have taken (an Int32Array's one element). */
  taken: SharedArrayBuffer;
  /**
   * Which end this thread takes chunks from: the first thread from the front, the second from the back,
   * so that each holds one run of consecutive chunks and the two runs meet wherever the faster got to.
   */
  fromEnd: boolean;
  /**
   * When the event loop last ran (heartbeatNow), where this thread is to read only while
   * the process is otherwise idle: a page waits while the heartbeat is older than BUSY_AFTER_MS.
   */
  heartbeat?: SharedArrayBuffer;
  distinctCheckAt?: number;
}

/** A heartbeat this old (ms) means the event loop is busy with a request. */
const BUSY_AFTER_MS = 16;

// A large store's attribute rows read in threads beside the process's event loop: at 1M products the
// read, parse and encoding take 6–9 s of CPU, which on the event loop was held back by (and held back)
// every request served meanwhile. One connection of its own, read only; one build.
const job = workerData as AttributeRowsJob;
const storage = openDatabase(job.url, { schema: job.schema, poolSize: 1, readOnly: true });
try {
  const taken = new Int32Array(job.taken);
  let mine = 0;
  const next = (): number | undefined => {
    if (Atomics.add(taken, 0, 1) >= job.chunks.length) return undefined;
    return job.fromEnd ? job.chunks.length - 1 - mine++ : mine++;
  };
  const heartbeat = job.heartbeat && new Int32Array(job.heartbeat);
  const asleep = new Int32Array(new SharedArrayBuffer(4));
  const beforePage = heartbeat
    ? () => {
        while (heartbeatNow() - Atomics.load(heartbeat, 0) > BUSY_AFTER_MS) Atomics.wait(asleep, 0, 0, 4);
      }
    : undefined;
  const rows = emptyRows(new ValueDictionary());
  const orders: Array<[number, Int32Array]> = [];
  for (let k = next(); k !== undefined; k = next()) {
    const order = await readRangeInto(rows, storage, job.storeId, {
      distinctCheckAt: job.distinctCheckAt,
      yieldEachPage: false,
      beforePage,
      range: job.chunks[k],
    });
    orders.push([k, order]);
  }
  orders.sort((a, b) => a[0] - b[0]);
  rows.order = new Int32Array(orders.reduce((sum, [, order]) => sum + order.length, 0));
  let at = 0;
  for (const [, order] of orders) {
    // Each chunk's order was checked as read: here where one meets the next.
    if (at > 0 && order.length > 0)
      rows.byteOrdered &&= byteOrder(rows.codes.at(rows.order[at - 1]), rows.codes.at(order[0])) < 0;
    rows.order.set(order, at);
    at += order.length;
  }
  const { posted, transfer } = postedRows(rows);
  parentPort!.postMessage({ rows: posted }, transfer);
} catch (error) {
  parentPort!.postMessage({ failure: (error as Error).message });
} finally {
  await storage.close();
}
