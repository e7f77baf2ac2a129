import { labelKey, labelWords } from './labels.js';

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
export function resolveAudience(label: string): AudienceResolution {
  const key = labelKey(label);
  if (!key) return { audience: '', how: 'unplaced' };
  const whole = WHOLE_KEYS.get(key) ?? WORDS[key];
  if (whole) {
    return { audience: whole, how: label.trim().toLowerCase() === whole ? 'exact' : 'folded' };
  }
  const found = new Set<KnownAudience>();
  for (const word of labelWords(label)) {
    const audience = WORDS[word];
    if (audience) found.add(audience);
  }
  const combined = combine(found);
  return combined ? { audience: combined, how: 'folded' } : { audience: `label:${key}`, how: 'unplaced' };
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
export function audienceOfWord(word: string): KnownAudience | undefined {
  return WORDS[labelKey(word)];
}

/**
 * The canonical words a product's audience adds to its search document: children's audiences also
 * carry "kid", so "kids" finds girls', boys' and baby products.
 */
export function audienceSearchWords(audience: string): string[] {
  if (!isKnownAudience(audience)) return [];
  return CHILDREN.has(audience) && audience !== 'kids' ? [audience, 'kids'] : [audience];
}
