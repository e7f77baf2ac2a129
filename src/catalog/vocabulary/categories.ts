import { stem } from '../../search/analyzer.js';
import { perLanguage, readingOrder, SUPPORTED_LANGUAGES } from '../../languages/languages.js';
import { DOMAIN_WORDS, GARMENT_VOCABULARY, GENERIC_LABELS, TITLE_STOP_WORDS } from './garments.js';
import { hasWords, labelKey, labelKeyIn, labelParts, labelWords, labelWordsWithParts } from './labels.js';

/** How a label was placed, as the vocabulary report shows it. */
export type CategoryHow =
  'override' | 'taxonomy' | 'exact' | 'folded' | 'head word' | 'sub category' | 'titles' | 'per product' | 'unplaced';

export interface Concept {
  /** The canonical garment concept ("t-shirt", "trousers"). */
  concept: string;
  /** Its complement group ("TOPWEAR"). */
  group: string;
}

export interface CategoryMatch extends Concept {
  how: 'exact' | 'folded' | 'head word';
}

/** English plural of a label's last word, so each label is written once in the vocabulary. */
function pluralOf(label: string): string {
  if (/(s|x|z|ch|sh)$/i.test(label)) return `${label}es`;
  if (/[^aeiou]y$/i.test(label)) return `${label.slice(0, -1)}ies`;
  return `${label}s`;
}

interface Entry extends Concept {
  /** The labels as written in the vocabulary (lower case), for telling an exact match from a folded one. */
  written: Set<string>;
}

function buildVocabulary() {
  const byKey = new Map<string, Entry>();
  const conflicts: string[] = [];
  const add = (alias: string, concept: Concept) => {
    for (const form of [alias, pluralOf(alias)]) {
      const key = labelKey(form);
      if (!key) continue;
      const existing = byKey.get(key);
      if (existing && (existing.concept !== concept.concept || existing.group !== concept.group)) {
        if (form === alias)
          conflicts.push(`${alias}: ${existing.group}/${existing.concept} vs ${concept.group}/${concept.concept}`);
        continue;
      }
      const entry = existing ?? { ...concept, written: new Set<string>() };
      entry.written.add(form.toLowerCase());
      byKey.set(key, entry);
    }
  };
  for (const [group, text] of Object.entries(GARMENT_VOCABULARY)) {
    for (const line of text.split(';')) {
      const [name, aliases = ''] = line.split(':');
      const concept = { concept: name.trim(), group };
      if (!concept.concept) continue;
      add(concept.concept, concept);
      for (const alias of aliases.split(',')) if (alias.trim()) add(alias.trim(), concept);
    }
  }
  // The group names themselves ("Topwear", "Bottomwear") are labels too.
  for (const group of Object.keys(GARMENT_VOCABULARY)) {
    if (!byKey.has(labelKey(group))) add(group.toLowerCase(), { concept: group.toLowerCase(), group });
  }
  return { byKey, conflicts };
}

const VOCABULARY = buildVocabulary();

/** One language's garment labels by key, and how its titles name a product. */
interface Lexicon {
  language: string;
  byKey: Map<string, Entry>;
  /** The noun naming the product comes first ("Robe rouge"); English's comes last ("Red Dress"). */
  headFirst: boolean;
  titleStops: ReadonlySet<string>;
}

const CONCEPT_GROUPS = new Map([...VOCABULARY.byKey.values()].map((entry) => [entry.concept, entry.group]));

const ENGLISH_LEXICON: Lexicon = {
  language: 'en',
  byKey: VOCABULARY.byKey,
  headFirst: false,
  titleStops: TITLE_STOP_WORDS,
};

/** The other languages' garment labels (languages/data): each label under the English concept it names. */
const otherLexicon = perLanguage((data): Lexicon => {
  const byKey = new Map<string, Entry>();
  for (const [concept, labels] of Object.entries(data.garments)) {
    const group = CONCEPT_GROUPS.get(concept);
    if (!group) {
      VOCABULARY.conflicts.push(`${data.code}: ${concept} is no garment concept of garments.ts`);
      continue;
    }
    for (const label of labels.split(',').map((l) => l.trim())) {
      const key = labelKeyIn(label, data.code);
      if (!key) continue;
      const existing = byKey.get(key);
      if (existing && existing.concept !== concept) {
        VOCABULARY.conflicts.push(`${data.code} ${label}: ${existing.concept} vs ${concept}`);
        continue;
      }
      const entry = existing ?? { concept, group, written: new Set<string>() };
      entry.written.add(label.toLowerCase());
      byKey.set(key, entry);
    }
  }
  const titleStops = new Set(
    (data.titleStops ?? '')
      .split(/\s+/)
      .filter(Boolean)
      .map((w) => labelKeyIn(w, data.code)),
  );
  return { language: data.code, byKey, headFirst: data.headFirst ?? false, titleStops };
});

/** A supported language's lexicon (built the first time it is read); undefined for an unknown code. */
const lexiconOf = (language: string) => (language === 'en' ? ENGLISH_LEXICON : otherLexicon(language));
const ENGLISH_ORDER = readingOrder('en');
const GENERIC = new Map(Object.entries(GENERIC_LABELS).map(([label, group]) => [labelKey(label), group]));
const DOMAIN = new Map(Object.entries(DOMAIN_WORDS).map(([word, group]) => [stem(word), group]));
/** The longest label in the vocabulary, in words: title scanning looks at windows up to this size. */
const MAX_WORDS = 4;

/** Vocabulary labels that fold to one key but name different concepts (a unit test keeps this empty). */
export function vocabularyConflicts(): readonly string[] {
  for (const language of SUPPORTED_LANGUAGES) lexiconOf(language);
  return VOCABULARY.conflicts;
}
/** How many labels (as written, with their plurals) the vocabulary knows. */
export const vocabularySize = (): number => VOCABULARY.byKey.size;

function lookup(label: string, language = 'en'): CategoryMatch | undefined {
  const entry = lexiconOf(language)?.byKey.get(labelKeyIn(label, language));
  if (!entry) return undefined;
  const how = entry.written.has(label.trim().toLowerCase()) ? 'exact' : 'folded';
  return { concept: entry.concept, group: entry.group, how };
}

/** Whether a label is one of a language's garment labels as written (no head word, no compound split). */
export function isGarmentLabel(label: string, language: string): boolean {
  return lookup(label, language) !== undefined;
}

/**
 * The languages a store reads labels in, as passes: its own language and English first (a label
 * exactly as written, then by its head word), then the other languages.
 */
function passes(order: readonly string[]): string[][] {
  const first = order[0] === 'en' ? ['en'] : [order[0], 'en'];
  return [first, order.filter((language) => !first.includes(language))];
}

/**
 * The garment concept named by a run of folded words, looking at every window of up to four words
 * and preferring the one that ends last, then the longest (the head noun of an English noun phrase
 * comes last: "Cropped Jeans", "Kurta Set"). Windows are matched with their words run together, so
 * "t shirt" finds "tshirt".
 */
export function conceptInWords(words: readonly string[], language = 'en'): Concept | undefined {
  const lexicon = lexiconOf(language)!;
  if (lexicon.headFirst) {
    // Romance languages name the product first ("Jupe en jean" is a skirt, "Vestido camisero" a dress).
    for (let start = 0; start < words.length; start++) {
      for (let size = Math.min(MAX_WORDS, words.length - start); size > 0; size--) {
        const entry = lexicon.byKey.get(words.slice(start, start + size).join(''));
        if (entry) return { concept: entry.concept, group: entry.group };
      }
    }
    return undefined;
  }
  for (let end = words.length; end > 0; end--) {
    for (let size = Math.min(MAX_WORDS, end); size > 0; size--) {
      const entry = lexicon.byKey.get(words.slice(end - size, end).join(''));
      if (entry) return { concept: entry.concept, group: entry.group };
    }
  }
  return undefined;
}

/** A label's words in a language, its compounds split where they are no label themselves. */
function wordsIn(label: string, language: string): string[] {
  const lexicon = lexiconOf(language)!;
  return labelWordsWithParts(label, language, (word) => lexicon.byKey.has(word));
}

/** Whether a label is too broad to place a product by itself ("Accessories", "Footwear", "Clothing"). */
export function isGenericLabel(label: string): boolean {
  return GENERIC.has(labelKey(label)) || !hasWords(label);
}

/** The group a generic label falls back to when a product's title names nothing (null: none). */
export function genericFallback(label: string): string | null {
  return GENERIC.get(labelKey(label)) ?? null;
}

/**
 * A category label resolved by the built-in vocabulary alone (no store data): exact, folded (case,
 * punctuation, plural, "Hat/beanie" as hat or beanie), or by its head word ("Outdoor trousers" ->
 * trousers), a domain word ("Swimwear bottom", "Underwear Tights") deciding the group. Undefined
 * when the vocabulary cannot say, and for generic labels (resolved per product).
 */
export function resolveCategoryLabel(
  label: string,
  order: readonly string[] = ENGLISH_ORDER,
): CategoryMatch | undefined {
  if (isGenericLabel(label)) return undefined;
  for (const languages of passes(order)) {
    const match = resolveIn(label, languages, order);
    if (match) return match;
  }
  return undefined;
}

function resolveIn(label: string, languages: readonly string[], order: readonly string[]): CategoryMatch | undefined {
  for (const language of languages) {
    const direct = lookup(label, language);
    if (direct) return direct;
  }
  const parts = labelParts(label);
  if (parts.length > 0) {
    const resolved = parts.flatMap((part) => {
      const match = resolveCategoryLabel(part, order);
      return match ? [{ match, words: labelWords(part).length }] : [];
    });
    if (resolved.length > 0) {
      // The group most parts agree on; a tie goes to the more specific part (more words: "Hair/alice
      // band" is a band), then to the first ("Bags & Purses" are bags).
      const votes = new Map<string, number>();
      for (const { match } of resolved) votes.set(match.group, (votes.get(match.group) ?? 0) + 1);
      const best = Math.max(...votes.values());
      const chosen = resolved
        .filter(({ match }) => votes.get(match.group) === best)
        .reduce((a, b) => (b.words > a.words ? b : a)).match;
      return { concept: chosen.concept, group: chosen.group, how: 'folded' };
    }
  }
  for (const language of languages) {
    const words = wordsIn(label, language);
    const domain = language === 'en' ? words.map((w) => DOMAIN.get(w)).find((g) => g !== undefined) : undefined;
    const head = conceptInWords(words, language);
    if (domain) {
      if (head?.group === domain) return { ...head, how: 'head word' };
      const word = words.find((w) => DOMAIN.get(w) === domain)!;
      return { concept: word, group: domain, how: 'head word' };
    }
    if (head) return { ...head, how: 'head word' };
  }
  return undefined;
}

/** The words of a title that name the product: before "with", "for", " - ", "|" or "(" (in the language's words). */
function titleHeadWords(title: string, language: string): string[] {
  const cut = title.split(/\s[-–|]\s|\(|\|/)[0] ?? '';
  const words = wordsIn(cut, language);
  const stops = lexiconOf(language)!.titleStops;
  const stop = words.findIndex((w, i) => i > 0 && stops.has(w));
  return stop > 0 ? words.slice(0, stop) : words;
}

/**
 * The garment a product title names ("SPYKAR Women Pink … Cropped Jeans" -> jeans, "Robe longue
 * fleurie" -> dress), or undefined: read in the store's language, then in English.
 */
export function conceptOfTitle(title: string, order: readonly string[] = ENGLISH_ORDER): Concept | undefined {
  for (const language of passes(order)[0]) {
    const concept =
      conceptInWords(titleHeadWords(title, language), language) ?? conceptInWords(wordsIn(title, language), language);
    if (concept) return concept;
  }
  return undefined;
}
