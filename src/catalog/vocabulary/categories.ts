import { stem } from '../../search/analyzer.js';
import { DOMAIN_WORDS, GARMENT_VOCABULARY, GENERIC_LABELS, TITLE_STOP_WORDS } from './garments.js';
import { hasWords, labelKey, labelParts, labelWords } from './labels.js';

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
const GENERIC = new Map(Object.entries(GENERIC_LABELS).map(([label, group]) => [labelKey(label), group]));
const DOMAIN = new Map(Object.entries(DOMAIN_WORDS).map(([word, group]) => [stem(word), group]));
/** The longest label in the vocabulary, in words: title scanning looks at windows up to this size. */
const MAX_WORDS = 4;

/** Vocabulary labels that fold to one key but name different concepts (a unit test keeps this empty). */
export const vocabularyConflicts = (): readonly string[] => VOCABULARY.conflicts;
/** How many labels (as written, with their plurals) the vocabulary knows. */
export const vocabularySize = (): number => VOCABULARY.byKey.size;

function lookup(label: string): CategoryMatch | undefined {
  const entry = VOCABULARY.byKey.get(labelKey(label));
  if (!entry) return undefined;
  const how = entry.written.has(label.trim().toLowerCase()) ? 'exact' : 'folded';
  return { concept: entry.concept, group: entry.group, how };
}

/**
 * The garment concept named by a run of folded words, looking at every window of up to four words
 * and preferring the one that ends last, then the longest (the head noun of an English noun phrase
 * comes last: "Cropped Jeans", "Kurta Set"). Windows are matched with their words run together, so
 * "t shirt" finds "tshirt".
 */
export function conceptInWords(words: readonly string[]): Concept | undefined {
  for (let end = words.length; end > 0; end--) {
    for (let size = Math.min(MAX_WORDS, end); size > 0; size--) {
      const entry = VOCABULARY.byKey.get(words.slice(end - size, end).join(''));
      if (entry) return { concept: entry.concept, group: entry.group };
    }
  }
  return undefined;
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
export function resolveCategoryLabel(label: string): CategoryMatch | undefined {
  if (isGenericLabel(label)) return undefined;
  const direct = lookup(label);
  if (direct) return direct;
  const parts = labelParts(label);
  if (parts.length > 0) {
    const resolved = parts.flatMap((part) => {
      const match = resolveCategoryLabel(part);
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
  const words = labelWords(label);
  const domain = words.map((w) => DOMAIN.get(w)).find((g) => g !== undefined);
  const head = conceptInWords(words);
  if (domain) {
    if (head?.group === domain) return { ...head, how: 'head word' };
    const word = words.find((w) => DOMAIN.get(w) === domain)!;
    return { concept: word, group: domain, how: 'head word' };
  }
  return head ? { ...head, how: 'head word' } : undefined;
}

/** The words of a title that name the product: before "with", "for", " - ", "|" or "(". */
function titleHeadWords(title: string): string[] {
  const cut = title.split(/\s[-–|]\s|\(|\|/)[0] ?? '';
  const words = labelWords(cut);
  const stop = words.findIndex((w, i) => i > 0 && TITLE_STOP_WORDS.has(w));
  return stop > 0 ? words.slice(0, stop) : words;
}

/** The garment a product title names ("SPYKAR Women Pink … Cropped Jeans" -> jeans), or undefined. */
export function conceptOfTitle(title: string): Concept | undefined {
  return conceptInWords(titleHeadWords(title)) ?? conceptInWords(labelWords(title));
}
