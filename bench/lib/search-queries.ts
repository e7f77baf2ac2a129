import type { CatalogRow } from './harness.js';

/** Deterministic PRNG (mulberry32) so every run builds the same queries. */
export function prng(seed: number) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export type Family = 'gender+colour+article' | 'brand+article' | 'article' | 'typo' | 'plural' | 'prefix';
export const FAMILIES: Family[] = ['gender+colour+article', 'brand+article', 'article', 'typo', 'plural', 'prefix'];

export interface EvalQuery {
  family: Family;
  text: string;
  /** The attributes a relevant product must have. */
  wants: { gender?: string; colour?: string; article?: string; brand?: string };
}

export const brandOf = (row: CatalogRow) => row.productDisplayName.trim().split(/\s+/)[0] ?? '';

export function isRelevant(row: CatalogRow, wants: EvalQuery['wants']): boolean {
  return (
    (!wants.gender || row.gender === wants.gender) &&
    (!wants.colour || row.baseColour === wants.colour) &&
    (!wants.article || row.articleType === wants.article) &&
    (!wants.brand || brandOf(row).toLowerCase() === wants.brand.toLowerCase())
  );
}

/** "Dresses" <-> "Dress", "Casual Shoes" <-> "Casual Shoe", "Jeans" <-> "Jean": the other grammatical number of the last word. */
function otherNumber(phrase: string): string {
  const words = phrase.split(' ');
  const last = words.pop()!;
  let flipped: string;
  if (/sses$|ches$|shes$|xes$/.test(last)) flipped = last.slice(0, -2);
  else if (/ies$/.test(last)) flipped = `${last.slice(0, -3)}y`;
  else if (/s$/.test(last) && !/ss$/.test(last)) flipped = last.slice(0, -1);
  else if (/(s|sh|ch|x)$/.test(last)) flipped = `${last}es`;
  else flipped = `${last}s`;
  return [...words, flipped].join(' ');
}

/** One typo (substitution, deletion or transposition) in the longest word of 5+ letters. */
function withTypo(text: string, random: () => number): string | undefined {
  const words = text.split(' ');
  const target = words
    .map((w, i) => [w, i] as const)
    .filter(([w]) => w.length >= 5 && /^[a-z]+$/.test(w))
    .sort((a, b) => b[0].length - a[0].length)[0];
  if (!target) return undefined;
  const [word, at] = target;
  const position = 1 + Math.floor(random() * (word.length - 2));
  const kind = Math.floor(random() * 3);
  let typo: string;
  if (kind === 0) typo = word.slice(0, position) + 'aeiou'[Math.floor(random() * 5)] + word.slice(position + 1);
  else if (kind === 1) typo = word.slice(0, position) + word.slice(position + 1);
  else typo = word.slice(0, position) + word[position + 1] + word[position] + word.slice(position + 2);
  if (typo === word) return undefined;
  words[at] = typo;
  return words.join(' ');
}

/**
 * Queries built from the catalog's own attributes: gender + colour + article type, brand + article,
 * article alone; and the same with one typo, with the other plural form, with the last word cut short.
 */
export function buildQueries(rows: CatalogRow[], perFamily: number, seed = 7): EvalQuery[] {
  const random = prng(seed);
  const pick = () => rows[Math.floor(random() * rows.length)];
  const seen = new Set<string>();
  const base: EvalQuery[] = [];
  const add = (query: EvalQuery) => {
    const key = `${query.family}|${query.text}`;
    if (seen.has(key) || !query.text.trim()) return false;
    seen.add(key);
    base.push(query);
    return true;
  };
  const lower = (s: string) => s.toLowerCase();
  for (let made = 0, guard = 0; made < perFamily && guard < perFamily * 50; guard++) {
    const row = pick();
    if (!row.baseColour || !row.gender) continue;
    if (
      add({
        family: 'gender+colour+article',
        text: `${lower(row.gender)} ${lower(row.baseColour)} ${lower(row.articleType)}`,
        wants: { gender: row.gender, colour: row.baseColour, article: row.articleType },
      })
    )
      made++;
  }
  for (let made = 0, guard = 0; made < perFamily && guard < perFamily * 50; guard++) {
    const row = pick();
    const brand = brandOf(row);
    if (!/^[A-Za-z]{3,}$/.test(brand)) continue;
    if (
      add({
        family: 'brand+article',
        text: `${lower(brand)} ${lower(row.articleType)}`,
        wants: { brand, article: row.articleType },
      })
    )
      made++;
  }
  const articles = [...new Set(rows.map((r) => r.articleType))].sort();
  for (let made = 0, guard = 0; made < perFamily && guard < perFamily * 50; guard++) {
    const article = articles[Math.floor(random() * articles.length)];
    if (add({ family: 'article', text: lower(article), wants: { article } })) made++;
  }
  const originals = [...base];
  const variants: EvalQuery[] = [];
  const derive = (family: Family, transform: (q: EvalQuery) => string | undefined) => {
    const order = [...originals].sort(() => random() - 0.5);
    let made = 0;
    for (const query of order) {
      if (made >= perFamily) break;
      const text = transform(query);
      if (!text || text === query.text) continue;
      const key = `${family}|${text}`;
      if (seen.has(key)) continue;
      seen.add(key);
      variants.push({ family, text, wants: query.wants });
      made++;
    }
  };
  derive('typo', (q) => withTypo(q.text, random));
  derive('plural', (q) => otherNumber(q.text));
  derive('prefix', (q) => {
    const words = q.text.split(' ');
    const last = words.pop()!;
    if (last.length < 5) return undefined;
    return [...words, last.slice(0, Math.max(3, Math.ceil(last.length * 0.6)))].join(' ');
  });
  return [...base, ...variants];
}

export interface Metrics {
  ndcg: number;
  precision: number;
  mrr: number;
  zero: number;
  count: number;
}

/** nDCG@10 (binary gains), precision@10, MRR and the zero-result rate of ranked code lists. */
export function score(results: Array<{ ranked: string[]; relevant: Set<string>; totalRelevant: number }>): Metrics {
  let ndcg = 0;
  let precision = 0;
  let mrr = 0;
  let zero = 0;
  for (const { ranked, relevant, totalRelevant } of results) {
    const top = ranked.slice(0, 10);
    if (ranked.length === 0) zero++;
    let dcg = 0;
    top.forEach((code, i) => {
      if (relevant.has(code)) dcg += 1 / Math.log2(i + 2);
    });
    let ideal = 0;
    for (let i = 0; i < Math.min(10, totalRelevant); i++) ideal += 1 / Math.log2(i + 2);
    ndcg += ideal > 0 ? dcg / ideal : 0;
    precision += top.filter((c) => relevant.has(c)).length / 10;
    const first = ranked.findIndex((c) => relevant.has(c));
    mrr += first === -1 ? 0 : 1 / (first + 1);
  }
  const n = results.length || 1;
  return { ndcg: ndcg / n, precision: precision / n, mrr: mrr / n, zero: zero / n, count: results.length };
}
