import os from 'node:os';
import { Worker } from 'node:worker_threads';
import type { ChangeFeed } from '../../storage/change-feed.js';
import type { WorkerErrorLog } from '../../jobs/workers.js';
import { LiveStoreIndex, type LiveIndex } from '../../storage/live-store-index.js';
import { storeValues } from '../../catalog/attribute-columns.js';
import { BUILT_IN, type AudienceResolver, type CompiledFilters } from '../../catalog/filters.js';
import type { ProductsReadPort } from './products.read-port.js';
import type { StorageHandle } from '../../storage/database.js';
import { codeRanges, countProductsUpTo } from './storage-order.js';
import type { AttributeMatch, FacetValue, MatchedCodes } from './attribute-filter.js';
import {
  adoptRows,
  byteOrder,
  heartbeatNow,
  placeRow,
  readAttributeRows,
  rowsByCode,
  STATUS_IDS,
  type AttributeRows,
  type PostedAttributeRows,
} from './attribute-rows.js';
import type { AttributeRowsJob } from './attribute-rows-thread.js';
import type { CodeList } from './code-list.js';

/** Past this many changes a rebuild reads less than following them. */
const REBUILD_AFTER = 20_000;
/**
 * Bytes of one product beside its attribute ids (code, its map entry, status, place in the order), and
 * of an index itself: the 1M console catalog's index (10 attribute columns) is estimated at 100 MB and
 * measured 67 MB of heap after a full collection (17 → 84 MB), the estimate erring on the side of the budget.
 */
const BYTES_PER_ROW = 60;
const BYTES_PER_INDEX = 64 * 1024;
/**
 * Stores from this many products are read in a thread of their own (attribute-rows-thread.ts). On the
 * event loop a 1M store's build took 15 s of CPU in pages between requests: the console's views
 * meanwhile (a code-or-name filter holds the loop 250 ms) held it back past 20 s, and the first
 * attribute filter waited for it (3.7–5.1 s); each page also delayed the requests behind it.
 */
const THREAD_FROM = 50_000;
/**
 * Products a chunk of a threaded build holds: the store's codes are cut into chunks that the build's
 * two threads take one at a time, so that a thread that gets less of the machine reads fewer of them.
 */
const CHUNK = 25_000;
/**
 * Whether the second of a build's two threads reads only while the event loop is idle: where the
 * process has two cores or fewer, two threads at full speed took the event loop's core from the requests
 * served meanwhile (1M products, the console: a code-or-name filter 250 → 380 ms at the median, 620 at
 * worst), and both at a lower priority (nice 10) finished later than one (3.1 s). Where no core is idle
 * (the console bench, Chromium on the same two cores) the second thread adds nothing; where one is, the
 * build takes half the time.
 */
const HELPER_YIELDS = os.availableParallelism() <= 2;
/** How often (ms) the event loop tells a yielding thread it is idle. */
const HEARTBEAT_MS = 4;

interface AttributeIndex extends LiveIndex, AttributeRows {}

/** What a listing asks of the index: attribute conditions, facets, and optionally one status. */
export interface AttributeQuery {
  filters: CompiledFilters;
  facets: string[];
  facetLimit: number;
  status?: string;
  resolver?: AudienceResolver;
}

/**
 * Every product of a store (any status), its attributes dictionary-encoded by row: the products
 * listing's attribute filters and facets (the console's Filters panel) answered from memory instead of
 * a scan of every product per view. A LiveStoreIndex: built on first use, followed from the change log
 * (an edited, restated or deleted product in place; a new product into its place in code order where
 * the database orders codes by their bytes, by a rebuild otherwise), bounded by VITRINE_ATTRIBUTE_INDEX_MB.
 */
export class ProductAttributeIndex {
  readonly #index: LiveStoreIndex<AttributeIndex>;
  /** Builds reading in a thread of their own (ended when the index is closed). */
  readonly #threads = new Set<Worker>();
  #closed = false;

  constructor(
    private readonly deps: {
      storage: StorageHandle;
      products: ProductsReadPort;
      changeLog: ChangeFeed;
      budgetBytes: number;
      /** When the build looks for attributes with too many distinct values (tests set it small). */
      distinctCheckAt?: number;
      /** The store size from which the build reads in a thread of its own (tests set it small). */
      threadFrom?: number;
      /** How many threads (one or two) read a large store's build (tests set both). */
      threads?: number;
      /** Products a chunk of a threaded build holds (tests set it small). */
      chunkSize?: number;
      /** Where a thread that failed is reported (the build then reads on the event loop). */
      onError?: WorkerErrorLog;
    },
  ) {
    this.#index = new LiveStoreIndex<AttributeIndex>({
      name: 'products.attributes',
      budgetBytes: deps.budgetBytes,
      sizeOf: (index) => BYTES_PER_INDEX + index.codes.length * (BYTES_PER_ROW + 4 * index.columns.names().length),
      build: (storeId) => this.#build(storeId),
      follow: (storeId, index, target) => this.#follow(storeId, index, target.seq),
    });
  }

  /**
   * The products matching `query` in product_code order and the facets asked for, as of `changeSeq`;
   * undefined when a filter or facet names an attribute the index does not answer for (read the products).
   */
  async match(store: { id: string; changeSeq: number }, query: AttributeQuery): Promise<AttributeMatch | undefined> {
    const asked = [...query.filters.map(({ field }) => field), ...query.facets];
    // A name with spaces around it is matched as written when the products are read.
    if (asked.some((name) => name !== name.trim())) return undefined;
    const index = await this.#index.current(store.id, { seq: store.changeSeq, key: 'attributes' }, undefined);
    if (asked.some((name) => index.unread.has(name.toLowerCase()))) return undefined;
    // The columns asked for, adopted with turns of the event loop where threads read the build.
    await index.columns.adoptPending(asked.map((name) => name.toLowerCase()));
    return matchRows(index, query);
  }

  /**
   * Whether a match would now wait for a long build: the store has no index kept and is large enough
   * for its build to read in threads (seconds at 1M products). Starts that build if none is under way,
   * so that a caller answering otherwise meanwhile (reading the first products) finds it ready later.
   */
  async buildingLong(store: { id: string; changeSeq: number }): Promise<boolean> {
    if (this.#index.peek(store.id)) return false;
    if (!this.#index.inFlight(store.id))
      this.#index
        .current(store.id, { seq: store.changeSeq, key: 'attributes' }, undefined)
        .catch((error: unknown) => this.deps.onError?.('products.attributes', error));
    const threadFrom = this.deps.threadFrom ?? THREAD_FROM;
    return (
      this.deps.storage.reopen !== undefined &&
      (await countProductsUpTo(this.deps.storage.db, store.id, threadFrom)) >= threadFrom
    );
  }

  close() {
    this.#closed = true;
    this.#index.close();
    for (const thread of this.#threads) void thread.terminate();
  }

  async #build(storeId: string): Promise<AttributeIndex> {
    // The sequence first: a change committed while reading is applied by the next follow.
    const seq = await this.deps.changeLog.latest(storeId);
    const { storage, distinctCheckAt } = this.deps;
    const threadFrom = this.deps.threadFrom ?? THREAD_FROM;
    const { reopen } = storage;
    const inThread = reopen !== undefined && (await countProductsUpTo(storage.db, storeId, threadFrom)) >= threadFrom;
    const onTheLoop = () => readAttributeRows(storage, storeId, storeValues(storeId), { distinctCheckAt });
    // A thread that could not read (its database unreachable from there): read on the event loop instead.
    const rows: AttributeRows & { builtElsewhere?: boolean } = inThread
      ? await this.#readInThreads(storeId, reopen).then(
          (parts) => ({ ...adoptRows(parts, storeValues(storeId)), builtElsewhere: true }),
          (error: unknown) => {
            if (this.#closed) throw error;
            this.deps.onError?.('products.attributes', error);
            return onTheLoop();
          },
        )
      : await onTheLoop();
    return { seq, key: 'attributes', ...rows };
  }

  /**
   * The store's rows read by threads of their own, each with its own read-only connection, taking
   * chunks of the codes from either end: the first thread's run and the second's, in code order.
   */
  async #readInThreads(storeId: string, reopen: { url: string; schema?: string }): Promise<PostedAttributeRows[]> {
    const chunks = await codeRanges(this.deps.storage.db, storeId, this.deps.chunkSize ?? CHUNK);
    const taken = new SharedArrayBuffer(4);
    const job = { ...reopen, storeId, chunks, taken, distinctCheckAt: this.deps.distinctCheckAt };
    if ((this.deps.threads ?? 2) === 1) return [await this.#readInThread({ ...job, fromEnd: false })];
    const heartbeat = HELPER_YIELDS ? new Int32Array(new SharedArrayBuffer(4)) : undefined;
    const beat = () => heartbeat && Atomics.store(heartbeat, 0, heartbeatNow());
    beat();
    const beating = heartbeat && setInterval(beat, HEARTBEAT_MS);
    try {
      return await Promise.all([
        this.#readInThread({ ...job, fromEnd: false }),
        this.#readInThread({ ...job, fromEnd: true, heartbeat: heartbeat?.buffer }),
      ]);
    } finally {
      clearInterval(beating);
    }
  }

  #readInThread(job: AttributeRowsJob): Promise<PostedAttributeRows> {
    const thread = new Worker(new URL('./attribute-rows-thread.js', import.meta.url), { workerData: job });
    this.#threads.add(thread);
    return new Promise<PostedAttributeRows>((resolve, reject) => {
      thread.once('message', (reply: { rows?: PostedAttributeRows; failure?: string }) =>
        reply.rows ? resolve(reply.rows) : reject(new Error(`attribute index build: ${reply.failure}`)),
      );
      thread.once('error', reject);
      thread.once('exit', (code) => reject(new Error(`attribute index build: its thread ended (${code})`)));
    }).finally(() => this.#threads.delete(thread));
  }

  async #follow(storeId: string, index: AttributeIndex, upTo: number): Promise<boolean> {
    if (upTo - index.seq > REBUILD_AFTER) return false;
    const changed = await this.deps.changeLog.changedKeys(storeId, index.seq, upTo, ['product']);
    if (!changed) return false;
    const codes = changed.get('product') ?? [];
    const [records, rowOf] = await Promise.all([
      this.deps.products.attributesByCodes(storeId, codes),
      rowsByCode(index),
      // A write needs every column: those threads read adopted here, with turns of the event loop.
      index.columns.adoptPending(),
    ]);
    const added = records.filter((record) => !rowOf.has(record.code));
    if (added.length > 0 && !index.byteOrdered) return false;
    const byCode = new Map(records.map((record) => [record.code, record]));
    for (const code of codes) {
      const row = rowOf.get(code);
      if (row !== undefined) placeRow(index, row, byCode.get(code));
    }
    const rows = added.map((record) => {
      const row = index.codes.length;
      rowOf.set(record.code, row);
      index.codes.push(record.code);
      placeRow(index, row, record);
      return row;
    });
    if (rows.length > 0) index.order = insertInOrder(index.order, rows, index.codes);
    index.seq = upTo;
    return true;
  }
}

/** `order` with `rows` (new codes) each put in its place: a binary search each, one copy of the rest. */
function insertInOrder(order: Int32Array, rows: number[], codes: CodeList): Int32Array {
  rows.sort((a, b) => byteOrder(codes.at(a), codes.at(b)));
  const merged = new Int32Array(order.length + rows.length);
  let from = 0;
  let to = 0;
  for (const row of rows) {
    let low = from;
    let high = order.length;
    while (low < high) {
      const middle = (low + high) >>> 1;
      if (byteOrder(codes.at(order[middle]), codes.at(row)) < 0) low = middle + 1;
      else high = middle;
    }
    merged.set(order.subarray(from, low), to);
    to += low - from;
    from = low;
    merged[to++] = row;
  }
  merged.set(order.subarray(from), to);
  return merged;
}

/**
 * One pass over the rows: a row matches when every condition holds; facets are disjunctive (a row
 * failing exactly one condition still counts in that attribute's facet), as AttributeScan counts them.
 */
function matchRows(index: AttributeIndex, query: AttributeQuery): AttributeMatch {
  const { columns, status, codes } = index;
  const wanted = query.status === undefined ? 0 : (STATUS_IDS.get(query.status) ?? -1);
  const tests = columns.conditionTests(query.filters, query.resolver ?? BUILT_IN);
  const facets = query.facets.map((name) => {
    const key = name.toLowerCase();
    const column = columns.column(key);
    return { name, key, column, counts: new Int32Array(column ? columns.largestId(key) + 1 : 0) };
  });
  // Plain arrays and indexed loops: this pass reads every product (1M products, 7 facets: 316 → 238 ms).
  const counted = facets.filter((facet) => facet.column !== undefined);
  const facetColumns = counted.map((facet) => facet.column!);
  const facetCounts = counted.map((facet) => facet.counts);
  // A row failing exactly one condition counts in the facets of that condition's attribute only.
  const facetsOfTest = tests.map((test) => counted.flatMap((facet, f) => (facet.key === test.key ? [f] : [])));
  const { order } = index;
  const matched = new Int32Array(order.length);
  let count = 0;
  for (let i = 0; i < order.length; i++) {
    const row = order[i];
    const rowStatus = status[row];
    if (rowStatus === 0 || (wanted !== 0 && rowStatus !== wanted)) continue;
    let failures = 0;
    let failedTest = -1;
    for (let t = 0; t < tests.length; t++) {
      const { column, accepted } = tests[t];
      if (column !== undefined && accepted[column[row]] === 1) continue;
      failedTest = t;
      if (++failures > 1) break;
    }
    if (failures > 1) continue;
    if (failures === 0) {
      matched[count++] = row;
      for (let f = 0; f < facetColumns.length; f++) {
        const id = facetColumns[f][row];
        if (id !== 0) facetCounts[f][id]++;
      }
    } else
      for (const f of facetsOfTest[failedTest]) {
        const id = facetColumns[f][row];
        if (id !== 0) facetCounts[f][id]++;
      }
  }
  const result: Record<string, FacetValue[]> = {};
  for (const { name, counts } of facets) {
    const values: FacetValue[] = [];
    counts.forEach((count, id) => {
      if (count > 0) values.push({ value: columns.display(id), count });
    });
    result[name] = values
      .sort((a, b) => b.count - a.count || (a.value < b.value ? -1 : a.value > b.value ? 1 : 0))
      .slice(0, query.facetLimit);
  }
  return { codes: new MatchedRows(codes, matched.slice(0, count)), facets: result };
}

/**
 * A match as rows of the index's code list (4 bytes a product, the codes themselves shared with the
 * index): a filter matching most of a 1M store is kept between pages and its facet count is not
 * rebuilt for each. Rows keep their code for the index's life (a follow never moves one), so a kept
 * match stays right while the cache holds it, that is while the catalog is unchanged.
 */
class MatchedRows implements MatchedCodes {
  constructor(
    private readonly codes: CodeList,
    private readonly rows: Int32Array,
  ) {}

  get length(): number {
    return this.rows.length;
  }

  slice(start: number, end: number): string[] {
    return [...this.rows.subarray(Math.max(0, start), Math.max(0, end))].map((row) => this.codes.at(row));
  }

  get bytes(): number {
    return this.rows.byteLength;
  }
}
