import { InvalidInputError } from '../../errors.js';

/**
 * Complete-the-look ranking rules (issue 9), pure and documented.
 *
 * - Department: same department, or Unisex on either side; never across (a women's product never
 *   complements a men's one, nor kids' an adult's).
 * - Usage: Formal, Party and Ethnic never go with Sports or Home; the same usage scores 1, a
 *   compatible one 0.6, an unknown one 0.5.
 * - Colour palette: a neutral (black, white, greys, navy, beige, browns, tan, khaki, cream,
 *   off white, charcoal, silver, steel, gold, nude, skin) goes with everything (1); the same colour
 *   family is tonal (0.8); harmonious families (blue with red, yellow, orange or pink; green with
 *   pink or yellow; purple with yellow) 0.6; anything else 0.3.
 * - Price band: exp(-|ln(candidate / source)|), 1 at the same price; 0.5 when a price is missing.
 * - Season: the same season 1, another 0.5, unknown 0.75.
 * score = 0.3 usage + 0.3 colour + 0.25 price + 0.15 season, in (0, 1]; products with an image come
 * first, then by score, then by product_code (deterministic).
 */
export interface Taxonomy {
  groups: Record<string, string[]>;
  complements: Record<string, string[]>;
}

/** A product's traits, folded once when the product enters the index (case and spacing normalised). */
export interface Traits {
  department: string;
  usage: string;
  colour: string;
  price: number | null;
  season: string;
  hasImage: boolean;
  /** 'neutral', a colour family, or '' when unknown. */
  colourClass: string;
  /** ln(price), NaN when unknown. */
  logPrice: number;
}

type RawTraits = Omit<Traits, 'colourClass' | 'logPrice'>;

export function traitsOf(raw: RawTraits): Traits {
  const colour = fold(raw.colour);
  return {
    ...raw,
    department: fold(raw.department),
    usage: fold(raw.usage),
    colour,
    season: fold(raw.season),
    colourClass: !colour ? '' : NEUTRALS.has(colour) ? 'neutral' : (FAMILIES[colour] ?? colour),
    logPrice: raw.price && raw.price > 0 ? Math.log(raw.price) : Number.NaN,
  };
}

const NEUTRALS = new Set([
  'black',
  'white',
  'grey',
  'grey melange',
  'navy blue',
  'navy',
  'beige',
  'brown',
  'tan',
  'khaki',
  'cream',
  'off white',
  'charcoal',
  'silver',
  'steel',
  'gold',
  'nude',
  'skin',
  'bronze',
  'metallic',
]);
const FAMILIES: Record<string, string> = {
  red: 'red',
  maroon: 'red',
  burgundy: 'red',
  'coffee brown': 'red',
  rust: 'orange',
  orange: 'orange',
  copper: 'orange',
  peach: 'orange',
  blue: 'blue',
  'turquoise blue': 'blue',
  teal: 'blue',
  'sea green': 'green',
  green: 'green',
  olive: 'green',
  'lime green': 'green',
  'fluorescent green': 'green',
  yellow: 'yellow',
  mustard: 'yellow',
  pink: 'pink',
  rose: 'pink',
  magenta: 'pink',
  purple: 'purple',
  lavender: 'purple',
  mauve: 'purple',
};
const HARMONY = new Set([
  'blue:red',
  'blue:yellow',
  'blue:orange',
  'blue:pink',
  'green:pink',
  'green:yellow',
  'purple:yellow',
]);
const CLASHES = new Set(['formal:sports', 'party:sports', 'ethnic:sports', 'formal:home', 'party:home', 'ethnic:home']);
const pair = (a: string, b: string) => (a < b ? `${a}:${b}` : `${b}:${a}`);
const fold = (value: string) => value.trim().toLowerCase();

export function departmentsFit(source: string, candidate: string): boolean {
  const s = fold(source);
  const c = fold(candidate);
  return s === c || s === 'unisex' || c === 'unisex' || s === '' || c === '';
}

export function usageClashes(source: string, candidate: string): boolean {
  return CLASHES.has(pair(fold(source), fold(candidate)));
}

export function usageScore(source: string, candidate: string): number {
  const s = fold(source);
  const c = fold(candidate);
  if (!s || !c || s === 'na' || c === 'na') return 0.5;
  if (s === c) return 1;
  return 0.6;
}

function colourClassScore(s: string, c: string): number {
  if (!s || !c) return 0.5;
  if (s === 'neutral' || c === 'neutral') return 1;
  if (s === c) return 0.8;
  return HARMONY.has(pair(s, c)) ? 0.6 : 0.3;
}

export function colourScore(source: string, candidate: string): number {
  const classOf = (colour: string) => {
    const f = fold(colour);
    return !f ? '' : NEUTRALS.has(f) ? 'neutral' : (FAMILIES[f] ?? f);
  };
  return colourClassScore(classOf(source), classOf(candidate));
}

export function priceScore(source: number | null, candidate: number | null): number {
  if (!source || !candidate || source <= 0 || candidate <= 0) return 0.5;
  return Math.exp(-Math.abs(Math.log(candidate / source)));
}

export function seasonScore(source: string, candidate: string): number {
  if (!source || !candidate) return 0.75;
  return fold(source) === fold(candidate) ? 1 : 0.5;
}

/** The part of the score that does not depend on price (usage, colour, season), on folded traits. */
export function categoricalScore(source: Traits, candidate: Traits): number {
  return (
    0.3 * usageScore(source.usage, candidate.usage) +
    0.3 * colourClassScore(source.colourClass, candidate.colourClass) +
    0.15 * seasonScore(source.season, candidate.season)
  );
}

/** The price part: exp(-|ln ratio|), 0.5 when either price is unknown. */
export function priceBandScore(source: Traits, candidate: Traits): number {
  const gap = Math.abs(candidate.logPrice - source.logPrice);
  return Number.isNaN(gap) ? 0.5 : Math.exp(-gap);
}

export function complementScore(source: Traits, candidate: Traits): number {
  return categoricalScore(source, candidate) + 0.25 * priceBandScore(source, candidate);
}

/** Checks an operator's taxonomy: groups of categories, and which groups complement which. */
export function parseTaxonomy(input: unknown): Taxonomy {
  const value = input as Partial<Taxonomy> | null;
  const isList = (v: unknown) => Array.isArray(v) && v.every((x) => typeof x === 'string' && x.trim() !== '');
  if (
    !value ||
    typeof value !== 'object' ||
    !value.groups ||
    typeof value.groups !== 'object' ||
    !Object.values(value.groups).every(isList)
  ) {
    throw new InvalidInputError('taxonomy "groups" must map a group label to a list of categories', 'groups');
  }
  if (!value.complements || typeof value.complements !== 'object' || !Object.values(value.complements).every(isList)) {
    throw new InvalidInputError(
      'taxonomy "complements" must map a group label to a list of group labels',
      'complements',
    );
  }
  for (const [group, others] of Object.entries(value.complements)) {
    const unknown = [group, ...others].find((g) => !Object.hasOwn(value.groups!, g));
    if (unknown !== undefined)
      throw new InvalidInputError(`taxonomy names group "${unknown}" that "groups" does not define`, 'complements');
  }
  return {
    groups: value.groups,
    complements: value.complements,
  };
}
