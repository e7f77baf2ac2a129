import { sql } from 'kysely';
import type { Db, StorageHandle } from '../storage/database.js';
import { chunked } from '../storage/chunks.js';
import type { Alternative, QueryPlan } from './query-plan.js';
import type { IndexedDoc, MatchMode, SearchOptions, TextHit, TextIndex } from './text-index.js';

// ts_rank weights in {D, C, B, A} order: title A, category B, other C (category above title, as
// measured), the vocabulary's concepts D (least, so a product's own words rank first).
const WEIGHTS = '{0.04, 0.2, 1.0, 0.7}';

// Tokens hold only letters and digits (see analyzer): they cannot carry tsquery operators.
function alternative(alt: Alternative): string {
  if (alt.kind === 'concept') return alt.token;
  return alt.kind === 'prefix'
    ? `${alt.token}:*`
    : alt.tokens.length === 1
      ? alt.tokens[0]
      : `(${alt.tokens.join(' <-> ')})`;
}

export function tsQueryExpression(plan: QueryPlan, mode: MatchMode): string {
  return plan.clauses.map((alts) => `(${alts.map(alternative).join(' | ')})`).join(mode === 'all' ? ' & ' : ' | ');
}

/** PostgreSQL: one row per product with a weighted tsvector under a GIN index. */
export class PostgresTextIndex implements TextIndex {
  #settling: Promise<void> | undefined;
  #settleAgain = false;
  #canSettle = true;

  constructor(private readonly storage: StorageHandle) {}

  /**
   * GIN's fast update puts new entries in a pending list, merged only once it passes 4 MB (or at
   * vacuum), and every search reads the whole list: with the follower writing during an import,
   * search took 13.6 ms at p50 over a 7,500-entry list and 4.4 ms once it was merged. So the list is
   * merged after each committed batch (cost within the noise of a 44k rebuild). One merge at a time;
   * writes meanwhile get one more. Merging needs the index's owner: a database user that is not
   * keeps the usual behaviour.
   */
  settle(): Promise<void> {
    if (!this.#canSettle) return Promise.resolve();
    if (this.#settling) {
      this.#settleAgain = true;
      return this.#settling;
    }
    this.#settling = (async () => {
      do {
        this.#settleAgain = false;
        try {
          await sql`SELECT gin_clean_pending_list('search_docs_tsv_idx'::regclass)`.execute(this.storage.db);
        } catch (error) {
          // 42501: not the index's owner.
          if ((error as { code?: string }).code === '42501') this.#canSettle = false;
          else throw error;
        }
      } while (this.#settleAgain && this.#canSettle);
    })().finally(() => (this.#settling = undefined));
    return this.#settling;
  }

  async write(trx: Db, storeId: string, docs: IndexedDoc[], removed: string[]) {
    for (const chunk of chunked(trx, removed)) {
      await trx.deleteFrom('search_docs').where('store_id', '=', storeId).where('product_code', 'in', chunk).execute();
    }
    // The rows travel as six arrays (unnest): 500 documents a statement bounds its size, not its parameters.
    for (const chunk of chunked(trx, docs, { maxItems: 500 })) {
      await sql`
        INSERT INTO search_docs (store_id, product_code, title, title_terms, tsv)
        SELECT ${storeId}, d.code, d.title, d.terms,
               setweight(to_tsvector('simple', d.terms), 'A') || setweight(to_tsvector('simple', d.category), 'B') || setweight(to_tsvector('simple', d.other), 'C') || setweight(to_tsvector('simple', d.concepts), 'D')
        FROM unnest(${chunk.map((d) => d.productCode)}::text[], ${chunk.map((d) => d.title)}::text[], ${chunk.map((d) => d.titleTerms)}::text[],
                    ${chunk.map((d) => d.category)}::text[], ${chunk.map((d) => d.other)}::text[], ${chunk.map((d) => d.concepts)}::text[]) AS d(code, title, terms, category, other, concepts)
        ON CONFLICT (store_id, product_code) DO UPDATE SET title = excluded.title, title_terms = excluded.title_terms, tsv = excluded.tsv`.execute(
        trx,
      );
    }
  }

  async clearStore(trx: Db, storeId: string) {
    await trx.deleteFrom('search_docs').where('store_id', '=', storeId).execute();
  }

  async count(storeId: string, plan: QueryPlan): Promise<number> {
    const { rows } = await sql<{ n: string }>`
      SELECT count(*) AS n FROM search_docs, to_tsquery('simple', ${tsQueryExpression(plan, 'all')}) AS q
      WHERE store_id = ${storeId} AND tsv @@ q`.execute(this.storage.db);
    return Number(rows[0]?.n ?? 0);
  }

  /**
   * A plain search's page and its total at once: every match is read to rank it, and counting them
   * beside (a window over the same rows) spares a second scan of the matches (a broad query at 1M
   * products reads tens of thousands of rows for each).
   */
  async searchCounted(storeId: string, plan: QueryPlan, limit: number): Promise<{ hits: TextHit[]; total: number }> {
    const rows = await this.#ranked(storeId, plan, 'all', limit, { counted: true });
    return { hits: rows.map(textHit), total: Number(rows[0]?.total ?? 0) };
  }

  async search(
    storeId: string,
    plan: QueryPlan,
    mode: MatchMode,
    limit: number,
    options: SearchOptions = {},
  ): Promise<TextHit[]> {
    return (await this.#ranked(storeId, plan, mode, limit, { sampleEvery: options.sampleEvery })).map(textHit);
  }

  /** The best `limit` matches by ts_rank; `counted`: each row also carries how many match. */
  async #ranked(
    storeId: string,
    plan: QueryPlan,
    mode: MatchMode,
    limit: number,
    { sampleEvery, counted = false }: { sampleEvery?: number; counted?: boolean },
  ) {
    const every = Math.floor(sampleEvery ?? 1);
    // No row number here: a hash of the code spreads the sample as evenly (as bigint: abs() of the
    // smallest int4 would overflow, and a negative multiple leaves no remainder either).
    const sample = every > 1 ? sql`AND hashtext(product_code)::bigint % ${every} = 0` : sql``;
    const total = counted ? sql`, count(*) OVER () AS total` : sql``;
    const { rows } = await sql<{ product_code: string; title_terms: string; rank: number; total?: string }>`
      SELECT product_code, title_terms, ts_rank(${WEIGHTS}::float4[], tsv, q) AS rank ${total}
      FROM search_docs, to_tsquery('simple', ${tsQueryExpression(plan, mode)}) AS q
      WHERE store_id = ${storeId} AND tsv @@ q ${sample}
      ORDER BY rank DESC, product_code LIMIT ${limit}`.execute(this.storage.db);
    return rows;
  }
}

/** A row of a ranked read as a hit: ts_rank is small (about 0.06 to 1), scaled so that score shaping treats both engines alike. */
function textHit(row: { product_code: string; title_terms: string; rank: number }): TextHit {
  return { productCode: row.product_code, titleTerms: row.title_terms, relevance: Number(row.rank) * 10 };
}
