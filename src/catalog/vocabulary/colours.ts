import { labelKey, labelWords } from './labels.js';

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

const CHROMATIC = new Set<ColourFamily>(['red', 'pink', 'orange', 'yellow', 'green', 'blue', 'purple']);

/** The family a query word names, for search ("gray" -> grey, "golden" -> gold); only family names, not shades. */
export function familyOfWord(word: string): ColourFamily | undefined {
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
export function resolveColour(label: string): ColourResolution {
  const key = labelKey(label);
  if (!key) return { family: '', lightness: 'medium', neutral: false, how: 'unplaced' };
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
  if (!shade && !ish) return { family: '', lightness: 'medium', neutral: false, how: 'unplaced' };
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
