import { setImmediate as nextTurn } from 'node:timers/promises';
import { AttributeColumns, foldName, ValueDictionary, type ExportedColumns } from '../../catalog/attribute-columns.js';
import { PRODUCT_STATUSES } from '../../catalog/statuses.js';
import type { PackedStrings } from '../../catalog/packed-strings.js';
import { CodeList } from './code-list.js';
import type { StorageHandle } from '../../storage/database.js';
import { codePagesInOrder, pagesInStorageOrder, type CodeRange, type StoragePages } from './storage-order.js';

// The attribute index's rows (attribute-index.ts) and how they are read from the database: on the
// event loop, or whole in a thread of their own (attribute-rows-thread.ts) and adopted after.

/** Status by id (0: the row's product was deleted). */
export const STATUS_IDS = new Map<string, number>(PRODUCT_STATUSES.map((status, i) => [status, i + 1]));

/**
 * Once the build has read this many products, an attribute with more distinct values than half of them
 * (names, image addresses, descriptions) loses its column: a filter or facet on it reads the products
 * instead. At 1M products the names alone would hold about 100 MB of values for a filter no screen offers.
 */
export const DISTINCT_CHECK_AT = 20_000;

/** Every product of a store (any status), its attributes dictionary-encoded by row. */
export interface AttributeRows {
  /** Product codes by row: the build's in the database's product_code order, then new products. */
  codes: CodeList;
  /** Rows in product_code order (the listing's order). */
  order: Int32Array;
  /**
   * Whether the database orders codes by their UTF-8 bytes (SQLite; PostgreSQL with the C collation),
   * checked on the build's codes: a new product then takes its place by a binary search; otherwise
   * (another collation) it rebuilds the index.
   */
  byteOrdered: boolean;
  /**
   * Code → row; undefined until a follow needs it (`rowsByCode`): only writes look codes up, and a 1M
   * store's map is 40 MB and a second to build.
   */
  rowOf: Map<string, number> | undefined;
  /** Rows whose code is no longer theirs (deleted while the build read), left out of `rowOf`. */
  forgotten: number[];
  /** Status id by row; 0 for a product deleted since the build. */
  status: Uint8Array;
  columns: AttributeColumns;
  /**
   * Attributes (folded names) the columns do not answer for exactly: a value that is a list or an
   * object, two spellings of the name in one product, a name with surrounding spaces, or too many
   * distinct values. A filter or facet on one of them is answered by reading the products.
   */
  unread: Set<string>;
}

/**
 * The clock of a build's heartbeat (ms, modulo 2^31 to fit an Int32Array): the event loop writes it, a
 * thread that reads only while the event loop is idle compares it with its own.
 */
export const heartbeatNow = () => Date.now() % 2 ** 31;

/** How the rows are read: see readRangeInto. */
export interface ReadOptions {
  distinctCheckAt?: number;
  /** A turn of the event loop after each page (SQLite's reads resolve at once): other requests get in. */
  yieldEachPage?: boolean;
  /** Called before each page is read (a thread that waits while the process is busy). */
  beforePage?: () => void;
  range?: CodeRange;
  /** Where the products come from (tests write between pages). */
  pages?: StoragePages;
}

/** No rows yet; values go to `dictionary`. */
export function emptyRows(dictionary: ValueDictionary): AttributeRows {
  return {
    codes: new CodeList(),
    order: new Int32Array(0),
    byteOrdered: true,
    rowOf: undefined,
    forgotten: [],
    status: new Uint8Array(1024),
    columns: new AttributeColumns(dictionary),
    unread: new Set(),
  };
}

/** Reads every product of the store (of a range of its codes) into rows. */
export async function readAttributeRows(
  storage: StorageHandle,
  storeId: string,
  dictionary: ValueDictionary,
  options: ReadOptions = {},
): Promise<AttributeRows> {
  const rows = emptyRows(dictionary);
  rows.order = await readRangeInto(rows, storage, storeId, options);
  return rows;
}

/**
 * Reads the products of a range of codes into `rows`, after the rows already there, and returns their
 * rows in the database's code order (a thread reads several ranges into one set of rows).
 */
export async function readRangeInto(
  rows: AttributeRows,
  storage: StorageHandle,
  storeId: string,
  { distinctCheckAt = DISTINCT_CHECK_AT, yieldEachPage = true, beforePage, range = {}, pages: source }: ReadOptions,
): Promise<Int32Array> {
  const base = rows.codes.length;
  // Pages of 1,000: each is read and parsed without a turn of the event loop (about 10 ms).
  const { inCodeOrder, pages, codeOrder } = source ?? pagesInStorageOrder(storage, storeId, 1000, range);
  for (;;) {
    beforePage?.();
    const next = await pages.next();
    if (next.done) break;
    const before = rows.codes.length;
    for (const product of next.value) {
      rows.codes.push(product.product_code);
      placeRow(rows, rows.codes.length - 1, {
        status: product.status,
        attributes: JSON.parse(product.attributes) as Record<string, unknown>,
      });
    }
    if (before < distinctCheckAt && rows.codes.length >= distinctCheckAt)
      for (const name of rows.columns.names())
        if (rows.columns.distinctCount(name) > rows.codes.length / 2) unread(rows, name);
    if (yieldEachPage) await nextTurn();
  }
  const end = rows.codes.length;
  if (inCodeOrder) {
    const order = Int32Array.from({ length: end - base }, (_, i) => base + i);
    rows.byteOrdered &&= inByteOrder(rows.codes, order);
    return order;
  }
  // SQLite orders codes by their bytes: the rows placed where the code index listed their rowids.
  const order = codeOrder!().map((i) => base + i);
  if (inByteOrder(rows.codes, order)) return order;
  // A rowid reused since it was listed (a product deleted, another added) put a code out of place:
  // the code index read again, each code found by a map.
  return listingOrder(storage, storeId, rows, base, range);
}

/** Whether the codes of `order` rise in UTF-8 byte order. */
function inByteOrder(codes: CodeList, order: Int32Array): boolean {
  for (let i = 1; i < order.length; i++) if (byteOrder(codes.at(order[i - 1]), codes.at(order[i])) >= 0) return false;
  return true;
}

/**
 * The rows from `base` in the database's code order, read from the code index a page at a time; a
 * code there but not among the rows (added since they were read) is left to the follow, which adds it,
 * and a row not there (deleted since) is forgotten, so that the follow adds its code anew if it comes back.
 */
async function listingOrder(
  storage: StorageHandle,
  storeId: string,
  rows: AttributeRows,
  base: number,
  range: CodeRange,
): Promise<Int32Array> {
  const rowOf = new Map<string, number>();
  for (let row = base; row < rows.codes.length; row++) rowOf.set(rows.codes.at(row), row);
  const order = new Int32Array(rows.codes.length - base);
  const listed = new Uint8Array(rows.codes.length - base);
  let count = 0;
  let previous: string | undefined;
  for await (const codes of codePagesInOrder(storage.db, storeId, 5_000, range)) {
    for (const code of codes) {
      if (previous !== undefined && byteOrder(previous, code) >= 0) rows.byteOrdered = false;
      previous = code;
      const row = rowOf.get(code);
      if (row === undefined || listed[row - base] === 1) continue;
      listed[row - base] = 1;
      order[count++] = row;
    }
    await nextTurn();
  }
  listed.forEach((isListed, i) => {
    if (isListed === 1) return;
    rows.forgotten.push(base + i);
    placeRow(rows, base + i, undefined);
  });
  return order.slice(0, count);
}

/** UTF-8 byte order, as SQLite (and PostgreSQL's C collation) order text. */
export function byteOrder(a: string, b: string): number {
  if (a === b) return 0;
  // UTF-16 code units order as UTF-8 bytes do, except where a surrogate pair meets U+E000–U+FFFF.
  if (/[\ud800-\uffff]/.test(a) || /[\ud800-\uffff]/.test(b)) return Buffer.compare(Buffer.from(a), Buffer.from(b));
  return a < b ? -1 : 1;
}

/** What placing a product needs to know of an attribute name as written, by name (a catalog has few). */
interface NameFacts {
  /** The name as compared (foldName). */
  key: string;
  /** Whether spaces surround it. */
  padded: boolean;
  /** A number of its own for `key`: where `seenBy` marks the product that last had it. */
  slot: number;
}
const nameFacts = new Map<string, NameFacts>();
const slotOfKey = new Map<string, number>();
/** By slot, the serial number of the product placed last that had the name (two spellings: unread). */
let seenBy = new Int32Array(64);
let placed = 0;

function factsOf(name: string): NameFacts {
  let facts = nameFacts.get(name);
  if (facts === undefined) {
    const key = foldName(name);
    let slot = slotOfKey.get(key);
    if (slot === undefined) slotOfKey.set(key, (slot = slotOfKey.size));
    if (slot >= seenBy.length) {
      const grown = new Int32Array(seenBy.length * 2);
      grown.set(seenBy);
      seenBy = grown;
    }
    nameFacts.set(name, (facts = { key, padded: name !== name.trim(), slot }));
  }
  return facts;
}

/** Stores a product's status and attributes at its row, or (no record) marks the row deleted. */
export function placeRow(
  rows: AttributeRows,
  row: number,
  product: { status: string; attributes: Record<string, unknown> } | undefined,
) {
  if (row >= rows.status.length) {
    const grown = new Uint8Array(Math.ceil(rows.status.length * 1.5) + row);
    grown.set(rows.status);
    rows.status = grown;
  }
  if (product === undefined) {
    rows.status[row] = 0;
    rows.columns.set(row, {});
    return;
  }
  rows.status[row] = STATUS_IDS.get(product.status) ?? 0;
  // Bounded between products (never while one is placed: its names' slots must hold).
  if (++placed === 0x7fffffff || nameFacts.size >= 10_000) {
    nameFacts.clear();
    slotOfKey.clear();
    seenBy.fill(0);
    placed = 1;
  }
  for (const name in product.attributes) {
    const value = product.attributes[name];
    const { key, padded, slot } = factsOf(name);
    if (rows.unread.size > 0 && rows.unread.has(key)) continue;
    const listed = value !== null && typeof value === 'object';
    if (listed || padded || seenBy[slot] === placed) unread(rows, key);
    seenBy[slot] = placed;
  }
  rows.columns.set(row, product.attributes, rows.unread);
}

function unread(rows: AttributeRows, key: string) {
  rows.unread.add(key);
  rows.columns.drop(key);
}

/** AttributeRows as a thread posts them: typed arrays are transferred, the rest cloned. */
export interface PostedAttributeRows {
  codes: PackedStrings;
  /** Rows whose code was forgotten (deleted while the build read). */
  forgotten: Int32Array;
  order: Int32Array;
  byteOrdered: boolean;
  status: Uint8Array;
  unread: string[];
  columns: ExportedColumns;
}

export function postedRows(rows: AttributeRows): { posted: PostedAttributeRows; transfer: ArrayBuffer[] } {
  const forgotten = Int32Array.from(rows.forgotten);
  const columns = rows.columns.exported();
  const codes = rows.codes.packed();
  const posted = {
    codes,
    forgotten,
    order: rows.order,
    byteOrdered: rows.byteOrdered,
    status: rows.status,
    unread: [...rows.unread],
    columns,
  };
  const arrays = [
    codes.ends,
    codes.bytes,
    forgotten,
    rows.order,
    rows.status,
    columns.values.ends,
    columns.values.bytes,
    columns.display.ends,
    columns.display.bytes,
    ...columns.entries.flatMap((e) => [e.column, e.distinct]),
  ];
  return { posted, transfer: arrays.map((array) => array.buffer as ArrayBuffer) };
}

/**
 * Threads' rows adopted by this one, `parts` in code order (each read the next range of codes): one
 * set of rows, value ids moved to the store's shared dictionary as each column is first read, an
 * attribute any part left unread left unread. The codes stay packed; their map is built when a follow
 * first needs it.
 */
export function adoptRows(parts: PostedAttributeRows[], dictionary: ValueDictionary): AttributeRows {
  const codes = new CodeList(parts.map((part) => part.codes));
  const sizes = parts.map((part) => part.codes.ends.length);
  const status = new Uint8Array(Math.max(1024, codes.length));
  const order = new Int32Array(parts.reduce((sum, part) => sum + part.order.length, 0));
  const forgotten: number[] = [];
  let byteOrdered = true;
  let offset = 0;
  let listed = 0;
  for (const [k, part] of parts.entries()) {
    for (const row of part.forgotten) forgotten.push(offset + row);
    status.set(part.status.subarray(0, sizes[k]), offset);
    // The last code of the parts before and this part's first, in the database's order.
    const first = part.order.length > 0 ? part.order[0] + offset : undefined;
    if (listed > 0 && first !== undefined && byteOrder(codes.at(order[listed - 1]), codes.at(first)) >= 0)
      byteOrdered = false;
    order.set(part.order, listed);
    if (offset > 0) for (let i = listed; i < listed + part.order.length; i++) order[i] += offset;
    listed += part.order.length;
    byteOrdered &&= part.byteOrdered;
    offset += sizes[k];
  }
  const unread = new Set(parts.flatMap((part) => part.unread));
  const parted = parts.map((part, k) => ({ columns: part.columns, rows: sizes[k] }));
  return {
    codes,
    order,
    byteOrdered,
    rowOf: undefined,
    forgotten,
    status,
    columns: AttributeColumns.adopt(parted, dictionary, unread),
    unread,
  };
}

/** The rows' code → row map, built on first use (rows threads read). */
export async function rowsByCode(rows: AttributeRows): Promise<Map<string, number>> {
  return (rows.rowOf ??= await rows.codes.rowMap(rows.forgotten));
}
