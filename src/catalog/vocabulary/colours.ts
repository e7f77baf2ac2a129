import { perLanguage, readingOrder } from '../../languages/languages.js';
import { labelKey, labelKeyIn, labelWords, labelWordsWithParts } from './labels.js';

/** Colour families: what a shopper names ("green") and what the palette rules of complete the look reason about. */
export const COLOUR_FAMILIES = [
  'black',
  'white',
  'grey',
  'beige',
  'brown',
  'red',
  'pink',
  'orange',
  'yellow',
  'green',
  'blue',
  'purple',
  'gold',
  'silver',
  'multi',
  'clear',
] as const;
export type ColourFamily = (typeof COLOUR_FAMILIES)[number];
export type Lightness = 'light' | 'medium' | 'dark';

export interface ColourResolution {
  /** A colour family, or '' when the label names none the vocabulary knows. */
  family: ColourFamily | '';
  lightness: Lightness;
  /** Goes with everything in an outfit (black, white, greys, navy, beige, browns, denim, metallics). */
  neutral: boolean;
  how: 'override' | 'exact' | 'folded' | 'unplaced';
}

interface Shade {
  family: ColourFamily;
  lightness: Lightness;
  neutral: boolean;
}

// Colour words and names (folded, singular): family, inherent lightness, and whether a neutral.
const SHADES = new Map<string, Shade>();
function shades(family: ColourFamily, lightness: Lightness, neutral: boolean, names: string) {
  for (const name of names.split(',')) {
    const key = labelKey(name);
    if (key && !SHADES.has(key)) SHADES.set(key, { family, lightness, neutral });
  }
}
shades('black', 'dark', true, 'black, jet black, jet, onyx, ebony, noir');
shades(
  'white',
  'light',
  true,
  'white, off white, offwhite, ivory, ecru, cream, bone, snow, optical white, pearl, chalk, milk, vanilla',
);
shades(
  'grey',
  'medium',
  true,
  'grey, gray, grey melange, melange grey, heather grey, silver grey, ash, slate, stone grey, dove grey, smoke, smokey, steel grey, gunmetal, graphite, pewter, mole',
);
shades('grey', 'dark', true, 'charcoal, charcoal grey, anthracite');
shades(
  'beige',
  'light',
  true,
  'beige, sand, nude, skin, oatmeal, camel, khaki, taupe, stone, champagne, biscuit, fawn, natural, linen, mushroom, greige, buff, putty, tan, light brown, cappuccino',
);
shades(
  'brown',
  'dark',
  true,
  'brown, chocolate, coffee, coffee brown, mocha, espresso, cognac, walnut, chestnut, mahogany, umber, sepia, caramel, toffee, rust brown, dark brown, tobacco, bronze',
);
shades('blue', 'dark', true, 'navy, navy blue, midnight, midnight blue, ink, indigo, denim, dark denim, petrol');
shades('red', 'medium', false, 'red, scarlet, crimson, cherry, tomato, ruby, vermilion, blood red, cardinal, poppy');
shades('red', 'dark', false, 'maroon, burgundy, wine, oxblood, bordeaux, claret, merlot, brick, brick red, marsala');
shades(
  'pink',
  'light',
  false,
  'pink, blush, baby pink, rose, dusty rose, powder pink, salmon, flamingo, candy pink, bubblegum, peony',
);
shades(
  'pink',
  'medium',
  false,
  'magenta, fuchsia, hot pink, cerise, raspberry, berry, watermelon, coral pink, rani, rani pink',
);
shades(
  'orange',
  'medium',
  false,
  'orange, tangerine, coral, peach, apricot, rust, terracotta, amber, burnt orange, pumpkin, cinnamon, ochre orange',
);
shades(
  'yellow',
  'medium',
  false,
  'yellow, mustard, lemon, gold yellow, canary, ochre, saffron, butter, sunflower, honey, turmeric, lime yellow',
);
shades(
  'green',
  'medium',
  false,
  'green, olive, olive green, khaki green, army green, military green, sage, mint, mint green, lime, lime green, emerald, jade, forest, forest green, bottle green, sea green, fluorescent green, neon green, pistachio, moss, kelly green, teal green, hunter green, parrot green',
);
shades(
  'blue',
  'medium',
  false,
  'blue, royal blue, cobalt, cobalt blue, sky blue, sky, powder blue, baby blue, light blue, aqua, aquamarine, cyan, turquoise, turquoise blue, teal, azure, sapphire, cerulean, steel blue, electric blue, ice blue, periwinkle',
);
shades(
  'purple',
  'medium',
  false,
  'purple, violet, lavender, lilac, mauve, plum, aubergine, eggplant, orchid, grape, amethyst, magenta purple',
);
shades('gold', 'medium', true, 'gold, golden, rose gold, brass, antique gold, copper');
shades('silver', 'light', true, 'silver, metallic, steel, platinum, chrome, silver tone');
shades(
  'multi',
  'medium',
  true,
  'multi, multicolor, multicolour, multi color, multi colour, multicoloured, multicolored, assorted, mixed, print, printed, rainbow',
);
shades('clear', 'light', true, 'transparent, clear, see through');
// Denim washes and patterns: what apparel labels say instead of a colour.
shades('blue', 'medium', true, 'wash, mid wash, stonewash, stone wash, acid wash, bleach wash');
shades(
  'multi',
  'medium',
  true,
  'leopard, animal print, zebra, snake, floral, stripe, striped, stripes, check, checked, checks, plaid, tartan, camo, camouflage, tie dye, paisley, polka dot, gingham, pattern, patterned',
);

// Modifiers: lightness words, and "-ish" words that name a family ("Greenish Khaki").
const LIGHTNESS: Record<string, Lightness> = {
  light: 'light',
  pale: 'light',
  pastel: 'light',
  soft: 'light',
  baby: 'light',
  powder: 'light',
  ice: 'light',
  dusty: 'light',
  washed: 'light',
  dark: 'dark',
  deep: 'dark',
  darkest: 'dark',
  rich: 'dark',
  bright: 'medium',
  neon: 'medium',
  vivid: 'medium',
  medium: 'medium',
  mid: 'medium',
};
const ISH: Record<string, ColourFamily> = {
  greenish: 'green',
  bluish: 'blue',
  blueish: 'blue',
  reddish: 'red',
  pinkish: 'pink',
  yellowish: 'yellow',
  orangish: 'orange',
  orangey: 'orange',
  purplish: 'purple',
  greyish: 'grey',
  grayish: 'grey',
  brownish: 'brown',
  beigeish: 'beige',
  whitish: 'white',
  blackish: 'black',
};

// Lightness words of the other catalog languages ("bleu clair", "dunkelblau", "verde oscuro").
for (const word of 'clair claire claires clairs hell hellen licht lichte claro clara claros claras chiaro chiara chiari chiare ljus ljusa lys lyse'.split(
  ' ',
))
  LIGHTNESS[word] = 'light';
for (const word of 'fonce foncee fonces foncees dunkel dunkle dunkler donker donkere oscuro oscura oscuros oscuras scuro scura scuri scure escuro escura mork morka mørk mørke'.split(
  ' ',
))
  LIGHTNESS[word] = 'dark';

/** A family and its shades in one of the other languages: shades by key, and the family's own names. */
interface ColourLexicon {
  shades: Map<string, Shade>;
  families: Map<string, ColourFamily>;
}

/**
 * The other languages' colour words (languages/data): each takes the English shade's lightness and
 * neutrality where the word is one (`marine` is navy), else its family's; the words that stem like
 * the first of a list are the family's own names ("noir", "noire", "noires").
 */
const colourLexicon = perLanguage((data) => {
  const lexicon: ColourLexicon = { shades: new Map(), families: new Map() };
  for (const [family, list] of Object.entries(data.colours) as Array<[ColourFamily, string]>) {
    const names = list
      .split(',')
      .map((name) => name.trim())
      .filter(Boolean);
    const own = labelKeyIn(names[0], data.code);
    const base = SHADES.get(family)!;
    for (const name of names) {
      const key = labelKeyIn(name, data.code);
      if (!key || lexicon.shades.has(key)) continue;
      lexicon.shades.set(key, SHADES.get(labelKey(name)) ?? base);
      if (key === own) lexicon.families.set(key, family);
    }
  }
  return lexicon;
});
const ENGLISH_ORDER = readingOrder('en');

const CHROMATIC = new Set<ColourFamily>(['red', 'pink', 'orange', 'yellow', 'green', 'blue', 'purple']);

/** The family a query word names, for search ("gray" -> grey, "golden" -> gold); only family names, not shades. */
export function familyOfWord(word: string, order: readonly string[] = ['en']): ColourFamily | undefined {
  for (const language of order) {
    const family =
      language === 'en' ? englishFamilyOfWord(word) : colourLexicon(language)?.families.get(labelKeyIn(word, language));
    if (family) return family;
  }
  return undefined;
}

function englishFamilyOfWord(word: string): ColourFamily | undefined {
  const key = labelKey(word);
  const family = (COLOUR_FAMILIES as readonly string[]).includes(key) ? (key as ColourFamily) : undefined;
  if (family) return family;
  const shade = SHADES.get(key);
  return shade && ['gray', 'golden', 'multicolor', 'multicolour', 'multicoloured', 'multicolored'].includes(key)
    ? shade.family
    : undefined;
}

/**
 * A colour label to its family and lightness: the last colour word decides the family ("Light
 * Turquoise" -> blue, light; "Melange Grey" -> grey); a lightness word ("Light", "Dark", "Pale")
 * sets the lightness; an "-ish" word over a neutral names its family ("Greenish Khaki" -> green, still
 * neutral); "Other Pink" is pink. Unknown labels stay unplaced (matched only by their own words).
 */
export function resolveColour(label: string, order: readonly string[] = ENGLISH_ORDER): ColourResolution {
  const key = labelKey(label);
  if (!key) return { family: '', lightness: 'medium', neutral: false, how: 'unplaced' };
  for (const language of order) {
    const resolved = language === 'en' ? resolveEnglishColour(label, key) : resolveColourIn(label, language);
    if (resolved) return resolved;
  }
  return { family: '', lightness: 'medium', neutral: false, how: 'unplaced' };
}

/** A colour label in one of the other languages: the whole label, else its last colour word, with a lightness word. */
function resolveColourIn(label: string, language: string): ColourResolution | undefined {
  const lexicon = colourLexicon(language)!;
  const shade =
    lexicon.shades.get(labelKeyIn(label, language)) ??
    labelWordsWithParts(label, language, (word) => lexicon.shades.has(word))
      .map((word) => lexicon.shades.get(word))
      .reverse()
      .find((found) => found !== undefined);
  if (!shade) return undefined;
  // A lightness word, alone ("bleu clair") or at the front of a compound ("Dunkelblau", "lichtblauw").
  const lightnessOf = (word: string) =>
    LIGHTNESS[word] ??
    Object.entries(LIGHTNESS).find(
      ([prefix]) => prefix.length >= 4 && word.length > prefix.length + 2 && word.startsWith(prefix),
    )?.[1];
  const lightness = labelWords(label)
    .map(lightnessOf)
    .find((l) => l !== undefined);
  return { ...shade, lightness: lightness ?? shade.lightness, how: 'folded' };
}

function resolveEnglishColour(label: string, key: string): ColourResolution | undefined {
  const whole = SHADES.get(key);
  if (whole) return { ...whole, how: label.trim().toLowerCase() === whole.family ? 'exact' : 'folded' };
  const words = labelWords(label);
  let shade: Shade | undefined;
  // The head colour is the last run of words that names a shade (two-word names first: "sea green").
  for (let end = words.length; end > 0 && !shade; end--) {
    shade = SHADES.get(words.slice(Math.max(0, end - 2), end).join('')) ?? SHADES.get(words[end - 1]);
  }
  const ish = words.map((w) => ISH[w]).find((f) => f !== undefined);
  const lightness = words.map((w) => LIGHTNESS[w]).find((l) => l !== undefined);
  if (!shade && !ish) return undefined;
  // An "-ish" colour over a neutral names the family ("Greenish Khaki"); over a colour it only tints it.
  const tint = ish && CHROMATIC.has(ish) ? ish : undefined;
  const family = shade && !(tint && shade.neutral) ? shade.family : (tint ?? ish!);
  return {
    family,
    lightness: lightness ?? shade?.lightness ?? 'medium',
    neutral: shade?.neutral ?? false,
    how: 'folded',
  };
}
