import { sql } from 'kysely';
import type { Db, StorageHandle } from '../storage/database.js';
import { chunked } from '../storage/chunks.js';
import type { Alternative, QueryPlan } from './query-plan.js';
import type { IndexedDoc, MatchMode, TextHit, TextIndex } from './text-index.js';

// Column weights for bm25 in declaration order: title, category, other. Category above title
// measured best on the relevance evaluation (bench/search-eval.bench.ts).
const BM25 = 'bm25(search_fts, 4.0, 6.0, 1.0)';

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
function conceptClause(alts: Alternative[]) {
  const own = alts.filter((alt) => !isConcept(alt));
  const parts = alts.filter(isConcept).map((alt) => sql`instr(' ' || d.concepts || ' ', ${` ${alt.token} `}) > 0`);
  if (own.length > 0)
    parts.unshift(
      sql`d.id IN (SELECT rowid FROM search_fts WHERE search_fts MATCH ${own.map(alternative).join(' OR ')})`,
    );
  return sql`(${sql.join(parts, sql` OR `)})`;
}

/** SQLite: an FTS5 table whose rowid is the id of the product's row in search_docs. */
export class SqliteTextIndex implements TextIndex {
  constructor(private readonly storage: StorageHandle) {}

  async write(trx: Db, storeId: string, docs: IndexedDoc[], removed: string[]) {
    const codes = [...removed, ...docs.map((d) => d.productCode)];
    if (codes.length === 0) return;
    for (const chunk of chunked(trx, codes, { maxItems: 500 })) {
      await sql`DELETE FROM search_fts WHERE rowid IN (SELECT id FROM search_docs WHERE store_id = ${storeId} AND product_code IN (${sql.join(chunk)}))`.execute(
        trx,
      );
      await trx.deleteFrom('search_docs').where('store_id', '=', storeId).where('product_code', 'in', chunk).execute();
    }
    for (const doc of docs) {
      const inserted = await trx
        .insertInto('search_docs')
        .values({
          store_id: storeId,
          product_code: doc.productCode,
          title: doc.title,
          title_terms: doc.titleTerms,
          concepts: doc.concepts,
        })
        .returning('id')
        .executeTakeFirstOrThrow();
      await sql`INSERT INTO search_fts (rowid, title, category, other) VALUES (${inserted.id}, ${doc.titleTerms}, ${doc.category}, ${doc.other})`.execute(
        trx,
      );
    }
  }

  async clearStore(trx: Db, storeId: string) {
    await sql`DELETE FROM search_fts WHERE rowid IN (SELECT id FROM search_docs WHERE store_id = ${storeId})`.execute(
      trx,
    );
    await trx.deleteFrom('search_docs').where('store_id', '=', storeId).execute();
  }

  async search(storeId: string, plan: QueryPlan, mode: MatchMode, limit: number): Promise<TextHit[]> {
    if (plan.clauses.some((alts) => alts.some(isConcept))) return this.#searchWithConcepts(storeId, plan, limit);
    // The store is filtered after the match: a store token in every document made each query walk
    // the whole store's posting list (measured: +1.2 ms a query on 44k products).
    const { rows } = await sql<{ product_code: string; title: string; title_terms: string; rank: number }>`
      SELECT d.product_code, d.title, d.title_terms, ${sql.raw(BM25)} AS rank
      FROM search_fts JOIN search_docs d ON d.id = search_fts.rowid
      WHERE search_fts MATCH ${matchExpression(plan, mode)} AND d.store_id = ${storeId}
      ORDER BY rank, d.product_code LIMIT ${limit}`.execute(this.storage.db);
    return rows.map((row) => ({
      productCode: row.product_code,
      title: row.title,
      titleTerms: row.title_terms,
      relevance: -Number(row.rank),
    }));
  }

  /** Every clause must hold ('all'); clauses without concepts rank by bm25, concept clauses filter. */
  async #searchWithConcepts(storeId: string, plan: QueryPlan, limit: number): Promise<TextHit[]> {
    const plain = plan.clauses.filter((alts) => !alts.some(isConcept));
    const filters = sql.join(plan.clauses.filter((alts) => alts.some(isConcept)).map(conceptClause), sql` AND `);
    type Row = { product_code: string; title: string; title_terms: string; rank: number };
    const { rows } =
      plain.length > 0
        ? await sql<Row>`
          SELECT d.product_code, d.title, d.title_terms, ${sql.raw(BM25)} AS rank
          FROM search_fts JOIN search_docs d ON d.id = search_fts.rowid
          WHERE search_fts MATCH ${matchExpression({ ...plan, clauses: plain }, 'all')} AND d.store_id = ${storeId} AND ${filters}
          ORDER BY rank, d.product_code LIMIT ${limit}`.execute(this.storage.db)
        : await sql<Row>`
          SELECT d.product_code, d.title, d.title_terms, 0 AS rank FROM search_docs d
          WHERE d.store_id = ${storeId} AND ${filters}
          ORDER BY d.product_code LIMIT ${limit}`.execute(this.storage.db);
    return rows.map((row) => ({
      productCode: row.product_code,
      title: row.title,
      titleTerms: row.title_terms,
      relevance: -Number(row.rank),
    }));
  }
}
