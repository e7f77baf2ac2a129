import {
  deterministicPrice,
  fmt,
  machineLine,
  readStyles,
  recordSection,
  skipWithoutShared,
  storeWithProducts,
  type CatalogRow,
} from './lib/harness.js';
import { brandOf, prng, score, type Metrics } from './lib/search-queries.js';
import { GERMAN_HEADS, TRANSLATIONS, type BenchLanguage } from './lib/translations.js';

// Search relevance and complete the look per catalog language: the real 44k catalog translated into
// French, German and Spanish by the bench's own table (lib/translations.ts), judged as search-eval
// judges (every attribute the query names), beside the same families on the English catalog.
if (skipWithoutShared('languages.bench')) process.exit(0);

type Language = 'en' | BenchLanguage;
const LANGUAGES: Language[] = (process.env.BENCH_LANGUAGES ?? 'en,fr,de,es').split(',') as Language[];
const ENGINES = (process.env.BENCH_LANGUAGE_ENGINES ?? 'sqlite').split(',') as Array<'sqlite' | 'postgres'>;
const PER_FAMILY = Number(process.env.EVAL_PER_FAMILY ?? 60);
const FAMILIES = ['type', 'plural', 'colour+type', 'audience+type', 'typo', 'compound'] as const;
type Family = (typeof FAMILIES)[number];

interface Wants {
  gender?: string;
  colour?: string;
  articles: string[];
}
interface LanguageQuery {
  family: Family;
  text: string;
  wants: Wants;
}

const rows = readStyles();
const TRANSLATED = new Set(Object.keys(TRANSLATIONS.fr.types));
const ADULTS = new Set(['Men', 'Women']);

/** The English singular of an article type's last word (the English catalog's other number). */
function englishSingular(type: string): string {
  const words = type.split(' ');
  const last = words.pop()!;
  const singular = /sses$|ches$|shes$/.test(last)
    ? last.slice(0, -2)
    : /s$/.test(last)
      ? last.slice(0, -1)
      : `${last}s`;
  return [...words, singular].join(' ');
}

const lower = (text: string) => text.toLowerCase();

/** The words of an English title that the translation replaces (gender, colour, the type's words). */
function titleRest(row: CatalogRow): string[] {
  const drop = new Set(
    [row.gender, "men's", "women's", 'mens', 'womens', ...row.baseColour.split(' '), ...row.articleType.split(' ')]
      .flatMap((word) => [word, word.replace(/s$/, '')])
      .map(lower),
  );
  return row.productDisplayName
    .split(/\s+/)
    .slice(1)
    .filter((word) => word && !drop.has(lower(word)) && !drop.has(lower(word).replace(/s$/, '')));
}

/** A catalog row as a product of the language's catalog. */
function productIn(language: Language, row: CatalogRow): Record<string, string> {
  const base = {
    product_code: row.id,
    'Sub Category': row.subCategory,
    Season: row.season,
    'Selling Price': deterministicPrice(row.id),
    Currency: 'EUR',
    'Image URL 1': `https://images.example/${row.id}.jpg`,
  };
  if (language === 'en')
    return {
      ...base,
      'Product Name': row.productDisplayName,
      Department: row.gender,
      Category: row.articleType,
      Colour: row.baseColour,
      Usage: row.usage,
    };
  const table = TRANSLATIONS[language];
  const type = table.types[row.articleType] ?? [row.articleType, row.articleType];
  const colour = table.colours[row.baseColour] ?? row.baseColour;
  const gender = table.genders[row.gender] ?? row.gender;
  const rest = titleRest(row).join(' ');
  const title = table.headFirst
    ? `${brandOf(row)} ${type[0]} ${rest} ${gender} ${colour}`
    : `${brandOf(row)} ${gender} ${rest} ${type[0]} ${colour}`;
  return {
    ...base,
    'Product Name': title.replace(/\s+/g, ' ').trim(),
    Department: gender,
    Category: type[1],
    Colour: colour,
    Usage: table.usages[row.usage] ?? row.usage,
  };
}

/** One typo (substitution, deletion or transposition) in the longest word of 5+ letters. */
function withTypo(text: string, random: () => number): string | undefined {
  const words = text.split(' ');
  const target = words
    .map((word, i) => [word, i] as const)
    .filter(([word]) => word.length >= 5 && /^\p{L}+$/u.test(word))
    .sort((a, b) => b[0].length - a[0].length)[0];
  if (!target) return undefined;
  const [word, at] = target;
  const chars = [...word];
  const position = 1 + Math.floor(random() * (chars.length - 2));
  const kind = Math.floor(random() * 3);
  if (kind === 0) chars[position] = 'aeiou'[Math.floor(random() * 5)];
  else if (kind === 1) chars.splice(position, 1);
  else [chars[position], chars[position + 1]] = [chars[position + 1], chars[position]];
  const typo = chars.join('');
  if (typo === word) return undefined;
  words[at] = typo;
  return words.join(' ');
}

/** The families' queries in a language, from the same seeded rows for every language. */
function queriesIn(language: Language): LanguageQuery[] {
  const random = prng(11);
  const type = (row: CatalogRow, plural: boolean) =>
    language === 'en'
      ? lower(plural ? row.articleType : englishSingular(row.articleType))
      : lower(TRANSLATIONS[language].types[row.articleType][plural ? 1 : 0]);
  const colour = (row: CatalogRow) =>
    lower(language === 'en' ? row.baseColour : TRANSLATIONS[language].colours[row.baseColour]);
  const gender = (row: CatalogRow) =>
    lower(language === 'en' ? row.gender : TRANSLATIONS[language].genders[row.gender]);
  const headFirst = language !== 'en' && TRANSLATIONS[language].headFirst;
  const usable = rows.filter(
    (row) => TRANSLATED.has(row.articleType) && TRANSLATIONS.fr.colours[row.baseColour] && ADULTS.has(row.gender),
  );
  const out: LanguageQuery[] = [];
  const seen = new Set<string>();
  const add = (family: Family, text: string | undefined, wants: Wants) => {
    if (!text || seen.has(`${family}|${text}`)) return false;
    seen.add(`${family}|${text}`);
    out.push({ family, text, wants });
    return true;
  };
  const fill = (family: Family, make: (row: CatalogRow) => [string | undefined, Wants]) => {
    for (let made = 0, guard = 0; made < PER_FAMILY && guard < PER_FAMILY * 100; guard++) {
      const row = usable[Math.floor(random() * usable.length)];
      const [text, wants] = make(row);
      if (add(family, text, wants)) made++;
    }
  };
  fill('type', (row) => [type(row, true), { articles: [row.articleType] }]);
  fill('plural', (row) => [type(row, false), { articles: [row.articleType] }]);
  fill('colour+type', (row) => [
    headFirst ? `${type(row, false)} ${colour(row)}` : `${colour(row)} ${type(row, false)}`,
    { colour: row.baseColour, articles: [row.articleType] },
  ]);
  fill('audience+type', (row) => [
    headFirst ? `${type(row, true)} ${gender(row)}` : `${gender(row)} ${type(row, true)}`,
    { gender: row.gender, articles: [row.articleType] },
  ]);
  const bases = out.filter((q) => q.family === 'colour+type' || q.family === 'audience+type');
  for (let made = 0, i = 0; made < PER_FAMILY && i < bases.length * 3; i++) {
    const base = bases[Math.floor(random() * bases.length)];
    if (add('typo', withTypo(base.text, random), base.wants)) made++;
  }
  if (language === 'de')
    for (const [head, articles] of Object.entries(GERMAN_HEADS))
      for (const who of ['Men', 'Women'])
        add('compound', `${gender({ gender: who } as CatalogRow)} ${head}`, { gender: who, articles });
  return out;
}

const relevant = (row: CatalogRow, wants: Wants) =>
  (!wants.gender || row.gender === wants.gender) &&
  (!wants.colour || row.baseColour === wants.colour) &&
  wants.articles.includes(row.articleType);

interface LanguageResult {
  metrics: Map<Family | 'overall', Metrics>;
  coverage: { types: number; covered: number; wrongAudience: number };
  seconds: number;
}

async function evaluate(engine: 'sqlite' | 'postgres', language: Language): Promise<LanguageResult> {
  const started = performance.now();
  const { db, container, store } = await storeWithProducts(
    engine,
    rows.map((row) => productIn(language, row)),
    { language },
  );
  try {
    await container.searchIndexer.follower.catchUp(store.id);
    const byFamily = new Map<Family, Array<{ ranked: string[]; relevant: Set<string>; totalRelevant: number }>>();
    const byId = new Map(rows.map((row) => [row.id, row]));
    for (const query of queriesIn(language)) {
      const wanted = new Set(rows.filter((row) => relevant(row, query.wants)).map((row) => row.id));
      if (wanted.size === 0) continue;
      const { hits } = await container.search.search(
        store,
        { query: query.text, offset: 0, limit: 10, group: 'false' },
        { readYourWrites: true },
      );
      const list = byFamily.get(query.family) ?? [];
      const ranked = hits.map((hit) => hit.product_code);
      list.push({ ranked, relevant: wanted, totalRelevant: wanted.size });
      if (
        process.env.BENCH_LANGUAGES_VERBOSE &&
        score([{ ranked, relevant: wanted, totalRelevant: wanted.size }]).ndcg < 0.5
      )
        console.log(
          `  weak ${language} ${query.family}: "${query.text}" -> ${ranked
            .slice(0, 3)
            .map((id) => byId.get(id)?.productDisplayName)
            .join(' | ')}`,
        );
      byFamily.set(query.family, list);
    }
    const metrics = new Map<Family | 'overall', Metrics>();
    for (const family of FAMILIES) if (byFamily.has(family)) metrics.set(family, score(byFamily.get(family)!));
    metrics.set('overall', score([...byFamily.values()].flat()));
    // Complete the look: one women's and one men's product per translated type.
    let types = 0;
    let covered = 0;
    let wrongAudience = 0;
    for (const article of TRANSLATED)
      for (const who of ['Women', 'Men']) {
        const source = rows.find((row) => row.articleType === article && row.gender === who);
        if (!source) continue;
        types++;
        const { categories } = await container.complements.complementary(store, source.id, 10);
        if (categories.length > 0) covered++;
        for (const category of categories)
          for (const product of category.products) {
            const gender = byId.get(product.product_code)?.gender ?? '';
            if (ADULTS.has(gender) && gender !== who) wrongAudience++;
          }
      }
    return { metrics, coverage: { types, covered, wrongAudience }, seconds: (performance.now() - started) / 1000 };
  } finally {
    await container.close();
    await db.drop();
  }
}

/** The families more than 0.03 nDCG@10 below English, said plainly under the table. */
const misses: string[] = [];
const cell = (m: Metrics | undefined) => (m ? `${fmt(m.ndcg, 3)} / ${fmt(m.precision, 3)}` : '—');
const lines: string[] = [];
for (const engine of ENGINES) {
  const results = new Map<Language, LanguageResult>();
  for (const language of LANGUAGES) {
    const result = await evaluate(engine, language);
    results.set(language, result);
    console.log(
      `${engine} ${language}: overall nDCG@10 ${fmt(result.metrics.get('overall')!.ndcg, 3)}, complete the look ${result.coverage.covered}/${result.coverage.types} (wrong audience ${result.coverage.wrongAudience}), ${fmt(result.seconds, 0)} s`,
    );
  }
  const english = results.get('en');
  lines.push(
    `**${engine}** — nDCG@10 / P@10 per family (Δ nDCG against English in brackets):`,
    '',
    `| family | ${LANGUAGES.join(' | ')} |`,
    `|---|${LANGUAGES.map(() => '---').join('|')}|`,
  );
  for (const family of [...FAMILIES, 'overall'] as const) {
    const row = LANGUAGES.map((language) => {
      const m = results.get(language)!.metrics.get(family);
      const base = english?.metrics.get(family);
      const delta =
        m && base && language !== 'en' ? ` (${m.ndcg - base.ndcg >= 0 ? '+' : ''}${fmt(m.ndcg - base.ndcg, 3)})` : '';
      return `${cell(m)}${delta}${m ? ` · ${m.count}` : ''}`;
    });
    lines.push(`| ${family} | ${row.join(' | ')} |`);
    for (const language of LANGUAGES) {
      const m = results.get(language)!.metrics.get(family);
      const base = english?.metrics.get(family);
      if (m && base && language !== 'en' && base.ndcg - m.ndcg > 0.03)
        misses.push(`${engine} ${language} ${family} (${fmt(m.ndcg - base.ndcg, 3)})`);
    }
  }
  lines.push(
    `| complete the look: types with a category / wrong audience | ${LANGUAGES.map((language) => {
      const c = results.get(language)!.coverage;
      return `${c.covered}/${c.types} (${fmt((100 * c.covered) / Math.max(1, c.types), 0)} %) / ${c.wrongAudience}`;
    }).join(' | ')} |`,
    '',
  );
}

recordSection(
  'Languages (the 44k catalog in French, German and Spanish)',
  [
    `The real catalog (44,446 products) translated by the bench's own table (\`bench/lib/translations.ts\`: ${TRANSLATED.size} article types, their plurals, 18 colours, genders, usages; titles rebuilt in each language's word order, German types as compounds such as Freizeitschuhe, Armbanduhr, Trainingshose), one store per language created with \`language\`. Queries of each family from the same seeded rows in every language (${PER_FAMILY} per family; \`· n\` is the number judged): type (plural), plural (the singular), colour + type, audience + type, one typo, and for German a compound head alone (\`damen schuhe\` must find Freizeitschuhe, Sportschuhe and Anzugschuhe). Relevant = has every attribute the query names, as in search-eval. Complete the look: one women's and one men's product per translated type; wrong audience counts suggested products of the other adult gender.`,
    '',
    ...lines,
    `Families more than 0.03 below English: ${misses.length > 0 ? misses.join(', ') : 'none'}.`,
    '',
    `Target: every family within 0.03 nDCG@10 of English. \`node build/bench/languages.bench.js\` (BENCH_LANGUAGES, BENCH_LANGUAGE_ENGINES=sqlite,postgres, EVAL_PER_FAMILY). ${machineLine()}.`,
  ].join('\n'),
);
