import { perLanguage, readingOrder } from '../../languages/languages.js';
import { labelKey, labelKeyIn, labelWords, labelWordsIn } from './labels.js';

/** The audiences complete the look and search understand. */
export const AUDIENCES = ['women', 'men', 'girls', 'boys', 'kids', 'baby', 'unisex'] as const;
export type KnownAudience = (typeof AUDIENCES)[number];

export interface AudienceResolution {
  /** A known audience, '' for no department, or `label:<key>` for a label the vocabulary does not know. */
  audience: string;
  how: 'override' | 'exact' | 'folded' | 'unplaced';
}

// Words (folded, singular) that name an audience, in any common department label.
const WORDS: Record<string, KnownAudience> = {};
const words = (audience: KnownAudience, list: string) => {
  for (const word of list.split(/\s+/)) if (word) WORDS[labelKey(word)] = audience;
};
words(
  'women',
  'women woman womens ladies lady ladieswear womenswear womanswear female females feminine femme her she misses missy damen dames mujer donna maternity',
);
words(
  'men',
  'men man mens menswear male males masculine gents gent gentlemen gentleman him he homme herren hombre uomo',
);
words('girls', 'girls girl girlswear');
words('boys', 'boys boy boyswear');
words(
  'kids',
  'kids kid kidswear children child childrens childrenswear junior juniors youth teen teens tween tweens toddler toddlers',
);
words('baby', 'baby babies babywear infant infants newborn newborns');
words('unisex', 'unisex everyone adult adults');

// Labels that are not a sum of their words.
const WHOLE: Record<string, KnownAudience> = {
  'unisex kids': 'kids',
  'kids unisex': 'kids',
  'boys and girls': 'kids',
  'girls and boys': 'kids',
  'men and women': 'unisex',
  'women and men': 'unisex',
  'his and hers': 'unisex',
  'gender neutral': 'unisex',
  genderless: 'unisex',
  'all genders': 'unisex',
  'baby children': 'kids',
};
const WHOLE_KEYS = new Map(Object.entries(WHOLE).map(([label, audience]) => [labelKey(label), audience]));

/** The other languages' audience words (languages/data), by their key in that language. */
const ENGLISH_WORDS = new Map<string, KnownAudience>(Object.entries(WORDS));
const otherWords = perLanguage((data) => {
  const byKey = new Map<string, KnownAudience>();
  for (const [audience, list] of Object.entries(data.audiences) as Array<[KnownAudience, string]>)
    for (const word of list.split(',')) {
      const key = labelKeyIn(word.trim(), data.code);
      if (key && !byKey.has(key)) byKey.set(key, audience);
    }
  return byKey;
});
const wordsIn = (language: string) => (language === 'en' ? ENGLISH_WORDS : otherWords(language)!);
const ENGLISH_ORDER = readingOrder('en');

const ADULTS = new Set<string>(['women', 'men', 'unisex']);
const CHILDREN = new Set<string>(['girls', 'boys', 'kids', 'baby']);

/** Combines the audiences a label's words name ("Baby/Children" -> kids, "Men & Women" -> unisex). */
function combine(found: Set<KnownAudience>): KnownAudience | undefined {
  if (found.size === 0) return undefined;
  if (found.size === 1) return [...found][0];
  const all = [...found];
  if (all.every((a) => ADULTS.has(a)))
    return found.has('women') && found.has('men') ? 'unisex' : all.find((a) => a !== 'unisex');
  // Children's words together: the one sex named ("Teen Girls", "Toddler Boys"), else kids ("Baby/Children").
  if (all.every((a) => CHILDREN.has(a))) {
    const sexes = all.filter((a) => a === 'girls' || a === 'boys');
    return sexes.length === 1 ? sexes[0] : 'kids';
  }
  // Adults and children in one label ("Women & Girls"): the children's audience is the narrower promise.
  return all.find((a) => CHILDREN.has(a));
}

/** A department label to its audience: women / men / girls / boys / kids / baby / unisex, or its own. */
export function resolveAudience(label: string, order: readonly string[] = ENGLISH_ORDER): AudienceResolution {
  const key = labelKey(label);
  if (!key) return { audience: '', how: 'unplaced' };
  const whole = WHOLE_KEYS.get(key) ?? WORDS[key];
  if (whole && order[0] === 'en') {
    return { audience: whole, how: label.trim().toLowerCase() === whole ? 'exact' : 'folded' };
  }
  // The store's language first: a whole label, then its words (`Damen & Mädchen`).
  for (const language of order) {
    const words = wordsIn(language);
    const named = language === 'en' ? whole : words.get(labelKeyIn(label, language));
    if (named) return { audience: named, how: 'folded' };
    const found = new Set<KnownAudience>();
    for (const word of language === 'en' ? labelWords(label) : labelWordsIn(label, language)) {
      const audience = words.get(word);
      if (audience) found.add(audience);
    }
    const combined = combine(found);
    if (combined) return { audience: combined, how: 'folded' };
  }
  return { audience: `label:${key}`, how: 'unplaced' };
}

export function isKnownAudience(value: string): value is KnownAudience {
  return (AUDIENCES as readonly string[]).includes(value);
}

/**
 * Whether a candidate's audience may complement the source's: the same audience; unisex with women
 * and men; kids with girls, boys and baby. Women never with men, children never with adults, a label
 * the vocabulary does not know only with itself. No department on either side: no constraint.
 */
export function audiencesFit(source: string, candidate: string): boolean {
  if (source === candidate || source === '' || candidate === '') return true;
  const pair = (a: string, b: string) => (source === a && candidate === b) || (source === b && candidate === a);
  return (
    pair('unisex', 'women') ||
    pair('unisex', 'men') ||
    pair('kids', 'girls') ||
    pair('kids', 'boys') ||
    pair('kids', 'baby')
  );
}

/** Query words that name an audience, to the word the index carries for it ("ladies" -> "women"). */
export function audienceOfWord(word: string, order: readonly string[] = ENGLISH_ORDER): KnownAudience | undefined {
  for (const language of order) {
    const audience = wordsIn(language).get(labelKeyIn(word, language));
    if (audience) return audience;
  }
  return undefined;
}

/**
 * The canonical words a product's audience adds to its search document: children's audiences also
 * carry "kid", so "kids" finds girls', boys' and baby products.
 */
export function audienceSearchWords(audience: string): string[] {
  if (!isKnownAudience(audience)) return [];
  return CHILDREN.has(audience) && audience !== 'kids' ? [audience, 'kids'] : [audience];
}
