import { createHash } from 'node:crypto';
import { sql } from 'kysely';
import type { Db, StorageHandle } from '../storage/database.js';
import { chunked } from '../storage/chunks.js';
import type { Alternative, QueryPlan } from './query-plan.js';
import type {
  IndexedDoc,
  MatchMode,
  SearchOptions,
  StoredTextDoc,
  TextDocuments,
  TextHit,
  TextIndex,
} from './text-index.js';

// Column weights for bm25 in declaration order: title, category, other. Category above title
// measured best on the relevance evaluation (bench/search-eval.bench.ts).
export const BM25_WEIGHTS = [4.0, 6.0, 1.0] as const;
const bm25 = (table: string) => `bm25(${table}, ${BM25_WEIGHTS.map((w) => w.toFixed(1)).join(', ')})`;

/**
 * Each store has an FTS5 table of its own: bm25 weighs a term by how rare it is in the table, so a
 * table shared by every store let one workspace's catalog move another's scores and ranking.
 * Prefixes of 2-4 characters are indexed for typed-ahead words.
 */
export function ftsTableOf(storeId: string): string {
  const hex = storeId.replaceAll('-', '').toLowerCase();
  return `search_fts_${/^[0-9a-f]{32}$/.test(hex) ? hex : createHash('sha256').update(storeId).digest('hex').slice(0, 32)}`;
}

export const FTS_COLUMNS = "title, category, other, tokenize = 'unicode61 remove_diacritics 2', prefix = '2 3 4'";

// Tokens hold only letters and digits (see analyzer), so quoting them is all the escaping FTS5 needs.
function alternative(alt: Alternative): string {
  if (alt.kind === 'concept') throw new Error('concept alternatives are matched outside FTS5');
  return alt.kind === 'prefix' ? `"${alt.token}"*` : `"${alt.tokens.join(' ')}"`;
}

export function matchExpression(plan: QueryPlan, mode: MatchMode): string {
  return plan.clauses.map((alts) => `(${alts.map(alternative).join(' OR ')})`).join(mode === 'all' ? ' AND ' : ' OR ');
}

const isConcept = (alt: Alternative): alt is { kind: 'concept'; token: string } => alt.kind === 'concept';

/**
 * A clause with concept alternatives: the product's own words (FTS5) or one of its concept tokens
 * (search_docs.concepts). Concepts live outside the FTS table on purpose: FTS5's bm25 counts every
 * column in a document's length, so they would shift the ranking of every other query.
 */
function conceptClause(table: string | undefined, alts: Alternative[]) {
  const own = alts.filter((alt) => !isConcept(alt));
  const parts = alts.filter(isConcept).map((alt) => sql`instr(' ' || d.concepts || ' ', ${` ${alt.token} `}) > 0`);
  if (own.length > 0 && table)
    parts.unshift(
      sql`d.id IN (SELECT rowid FROM ${sql.table(table)} WHERE ${sql.table(table)} MATCH ${own.map(alternative).join(' OR ')})`,
    );
  return sql`(${sql.join(parts, sql` OR `)})`;
}

/** SQLite: an FTS5 table per store whose rowid is the id of the product's row in search_docs. */
export class SqliteTextIndex implements TextIndex {
  /** Stores whose table is known to exist (created on a store's first indexed product). */
  readonly #tables = new Set<string>();
  readonly documents: TextDocuments;

  constructor(private readonly storage: StorageHandle) {
    this.documents = new FtsDocuments(storage, (storeId) => this.#existingTable(storeId));
  }

  /** Every write makes sure of the table (cheap): another process may have dropped it (a reindex). */
  async #ensureTable(trx: Db, storeId: string): Promise<string> {
    const table = ftsTableOf(storeId);
    await sql`CREATE VIRTUAL TABLE IF NOT EXISTS ${sql.table(table)} USING fts5(${sql.raw(FTS_COLUMNS)})`.execute(trx);
    this.#tables.add(table);
    return table;
  }

  /** The store's table, or undefined when nothing of the store was ever indexed. */
  async #existingTable(storeId: string): Promise<string | undefined> {
    const table = ftsTableOf(storeId);
    if (this.#tables.has(table)) return table;
    const found = await sql<{
      name: string;
    }>`SELECT name FROM sqlite_master WHERE type = 'table' AND name = ${table}`.execute(this.storage.db);
    if (found.rows.length === 0) return undefined;
    this.#tables.add(table);
    return table;
  }

  async write(trx: Db, storeId: string, docs: IndexedDoc[], removed: string[]) {
    const codes = [...removed, ...docs.map((d) => d.productCode)];
    if (codes.length === 0) return;
    const table = await this.#ensureTable(trx, storeId);
    for (const chunk of chunked(trx, codes, { maxItems: 500 })) {
      await sql`DELETE FROM ${sql.table(table)} WHERE rowid IN (SELECT id FROM search_docs WHERE store_id = ${storeId} AND product_code IN (${sql.join(chunk)}))`.execute(
        trx,
      );
      await trx.deleteFrom('search_docs').where('store_id', '=', storeId).where('product_code', 'in', chunk).execute();
    }
    // Many rows per statement: one statement per document cost more in building and compiling the
    // query than in SQLite (10,000 products: 699 ms of indexing, 20,000 statements).
    for (const chunk of chunked(trx, docs, { paramsPerItem: 5, maxItems: 500 })) {
      const inserted = await trx
        .insertInto('search_docs')
        .values(
          chunk.map((doc) => ({
            store_id: storeId,
            product_code: doc.productCode,
            title: doc.title,
            title_terms: doc.titleTerms,
            concepts: doc.concepts,
          })),
        )
        .returning(['id', 'product_code'])
        .execute();
      // RETURNING gives no row order: the rowids are matched by product code (unique per store).
      const idOf = new Map(inserted.map((row) => [row.product_code, row.id]));
      const rows = chunk.map(
        (doc) => sql`(${idOf.get(doc.productCode)}, ${doc.titleTerms}, ${doc.category}, ${doc.other})`,
      );
      await sql`INSERT INTO ${sql.table(table)} (rowid, title, category, other) VALUES ${sql.join(rows)}`.execute(trx);
    }
  }

  async clearStore(trx: Db, storeId: string) {
    await sql`DROP TABLE IF EXISTS ${sql.table(ftsTableOf(storeId))}`.execute(trx);
    this.#tables.delete(ftsTableOf(storeId));
    await trx.deleteFrom('search_docs').where('store_id', '=', storeId).execute();
  }

  async search(
    storeId: string,
    plan: QueryPlan,
    mode: MatchMode,
    limit: number,
    options: SearchOptions = {},
  ): Promise<TextHit[]> {
    const table = await this.#existingTable(storeId);
    try {
      return await this.#search(storeId, table, plan, mode, limit, Math.floor(options.sampleEvery ?? 1));
    } catch (error) {
      // Dropped by another process since it was seen (a reindex): nothing indexed right now.
      if (table && /no such table/.test((error as Error).message)) {
        this.#tables.delete(table);
        return [];
      }
      throw error;
    }
  }

  async count(storeId: string, plan: QueryPlan): Promise<number> {
    const table = await this.#existingTable(storeId);
    const conceptClauses = plan.clauses.filter((alts) => alts.some(isConcept));
    const plain = plan.clauses.filter((alts) => !alts.some(isConcept));
    if (plain.length > 0 && !table) return 0;
    let query;
    if (conceptClauses.length === 0)
      query = sql<{
        n: number;
      }>`SELECT count(*) AS n FROM ${sql.table(table!)} WHERE ${sql.table(table!)} MATCH ${matchExpression(plan, 'all')}`;
    else {
      const filters = sql.join(
        conceptClauses.map((alts) => conceptClause(table, alts)),
        sql` AND `,
      );
      query =
        plain.length > 0
          ? sql<{ n: number }>`SELECT count(*) AS n FROM ${sql.table(table!)} f JOIN search_docs d ON d.id = f.rowid
              WHERE ${sql.table(table!)} MATCH ${matchExpression({ ...plan, clauses: plain }, 'all')} AND ${filters}`
          : sql<{ n: number }>`SELECT count(*) AS n FROM search_docs d WHERE d.store_id = ${storeId} AND ${filters}`;
    }
    try {
      return Number((await query.execute(this.storage.db)).rows[0]?.n ?? 0);
    } catch (error) {
      if (table && /no such table/.test((error as Error).message)) {
        this.#tables.delete(table);
        return 0;
      }
      throw error;
    }
  }

  async #search(
    storeId: string,
    table: string | undefined,
    plan: QueryPlan,
    mode: MatchMode,
    limit: number,
    sampleEvery: number,
  ): Promise<TextHit[]> {
    type Row = { product_code: string; title_terms: string; rank: number };
    const conceptClauses = plan.clauses.filter((alts) => alts.some(isConcept));
    const plain = plan.clauses.filter((alts) => !alts.some(isConcept));
    if (conceptClauses.length === 0) {
      if (!table) return [];
      const sample = sampleEvery > 1 ? sql`AND rowid % ${sampleEvery} = 0` : sql``;
      // Ranked inside the FTS table first, the best `limit` joined to their documents after: joining
      // every match before sorting cost a third of a broad query (1M products, `shirt`: 222,931
      // matches, 197 -> 132 ms). Equal ranks at the cut are taken in index order.
      const { rows } = await sql<Row>`
        SELECT d.product_code, d.title_terms, t.rank FROM (
          SELECT rowid AS id, ${sql.raw(bm25(table))} AS rank FROM ${sql.table(table)}
          WHERE ${sql.table(table)} MATCH ${matchExpression(plan, mode)} ${sample}
          ORDER BY rank, rowid LIMIT ${limit}) t
        JOIN search_docs d ON d.id = t.id
        ORDER BY t.rank, d.product_code`.execute(this.storage.db);
      return rows.map(toHit);
    }
    // Every clause must hold ('all'); clauses without concepts rank by bm25, concept clauses filter.
    if (plain.length > 0 && !table) return [];
    const filters = sql.join(
      conceptClauses.map((alts) => conceptClause(table, alts)),
      sql` AND `,
    );
    const { rows } =
      plain.length > 0 && table
        ? await sql<Row>`
          SELECT d.product_code, d.title_terms, ${sql.raw(bm25(table))} AS rank
          FROM ${sql.table(table)} f JOIN search_docs d ON d.id = f.rowid
          WHERE ${sql.table(table)} MATCH ${matchExpression({ ...plan, clauses: plain }, 'all')} AND ${filters}
          ORDER BY rank, d.product_code LIMIT ${limit}`.execute(this.storage.db)
        : await sql<Row>`
          SELECT d.product_code, d.title_terms, 0 AS rank FROM search_docs d
          WHERE d.store_id = ${storeId} AND ${filters}
          ORDER BY d.product_code LIMIT ${limit}`.execute(this.storage.db);
    return rows.map(toHit);
  }
}

function toHit(row: { product_code: string; title_terms: string; rank: number }): TextHit {
  return { productCode: row.product_code, titleTerms: row.title_terms, relevance: -Number(row.rank) };
}

/** The documents of a store's FTS5 table (its content) with their product codes, by rowid. */
class FtsDocuments implements TextDocuments {
  readonly weights = BM25_WEIGHTS;

  constructor(
    private readonly storage: StorageHandle,
    private readonly tableOf: (storeId: string) => Promise<string | undefined>,
  ) {}

  async count(storeId: string): Promise<number> {
    const { n } = await this.storage.db
      .selectFrom('search_docs')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('store_id', '=', storeId)
      .executeTakeFirstOrThrow();
    return Number(n);
  }

  async page(storeId: string, afterRowid: number, size: number): Promise<StoredTextDoc[]> {
    const table = await this.tableOf(storeId);
    if (!table) return [];
    // The FTS table drives (its rowids are the store's documents), each joined to its code.
    const { rows } = await sql<DocRow>`
      SELECT f.rowid AS rowid, d.product_code AS code, f.title, f.category, f.other
      FROM ${sql.table(table)} f CROSS JOIN search_docs d ON d.id = f.rowid
      WHERE f.rowid > ${afterRowid} ORDER BY f.rowid LIMIT ${size}`.execute(this.storage.db);
    return rows.map(toDoc);
  }

  async ofCodes(storeId: string, codes: string[]): Promise<StoredTextDoc[]> {
    const table = await this.tableOf(storeId);
    if (!table || codes.length === 0) return [];
    const { rows } = await sql<DocRow>`
      SELECT d.id AS rowid, d.product_code AS code, f.title, f.category, f.other
      FROM search_docs d CROSS JOIN ${sql.table(table)} f ON f.rowid = d.id
      WHERE d.store_id = ${storeId} AND d.product_code IN (SELECT value FROM json_each(${JSON.stringify(codes)}))`.execute(
      this.storage.db,
    );
    return rows.map(toDoc);
  }

  // `+store_id`: by rowid, not through the (store_id, product_code) index, which the planner
  // otherwise prefers and which walks the whole store (100 ms at 1M products).
  async codesAt(storeId: string, rowids: number[]) {
    const found = new Map<number, string>();
    if (rowids.length === 0) return found;
    const { rows } = await sql<{ id: number; product_code: string }>`
      SELECT id, product_code FROM search_docs
      WHERE id IN (SELECT value FROM json_each(${JSON.stringify(rowids)})) AND +store_id = ${storeId}`.execute(
      this.storage.db,
    );
    for (const row of rows) found.set(Number(row.id), row.product_code);
    return found;
  }
}

type DocRow = { rowid: number; code: string; title: string; category: string; other: string };

const toDoc = (row: DocRow): StoredTextDoc => ({
  rowid: Number(row.rowid),
  code: row.code,
  columns: [row.title, row.category, row.other],
});
