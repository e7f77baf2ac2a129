import { InvalidInputError } from '../../errors.js';
import { audiencesFit, resolveAudience } from '../../catalog/vocabulary/audiences.js';
import { resolveColour, type ColourResolution } from '../../catalog/vocabulary/colours.js';

/**
 * Complete-the-look ranking rules, pure and documented (README › Complete the look).
 *
 * - Audience (the department resolved by the catalog vocabulary): the same audience; unisex with
 *   women and men; kids with girls, boys and baby; never women with men, nor children with adults.
 * - Usage: Formal, Party and Ethnic never go with Sports or Home; the same usage scores 1, a
 *   compatible one 0.6, an unknown one 0.5.
 * - Colour palette (colours resolved to family and lightness by the catalog vocabulary): a neutral
 *   (black, white, greys, navy, beige, browns, denim, metallics) goes with everything (1); the same
 *   family is tonal (0.8); harmonious families (blue with red, yellow, orange or pink; green with
 *   pink or yellow; purple with yellow) 0.6; a light with a dark colour 0.4; anything else 0.3.
 * - Price band: exp(-|ln(candidate / source)|), 1 at the same price; 0.5 when a price is missing.
 * - Season: the same season 1, another 0.5, unknown 0.75.
 * score = 0.3 usage + 0.3 colour + 0.25 price + 0.15 season, in (0, 1]; products with an image come
 * first, then by score, then by product_code (deterministic).
 */
export interface Taxonomy {
  groups: Record<string, string[]>;
  complements: Record<string, string[]>;
}

/** A product's traits, resolved once when the product enters the index (see the catalog vocabulary). */
export interface Traits {
  /** The resolved audience (women, men, …, '' for none, `label:<key>` for a label the vocabulary does not know). */
  audience: string;
  usage: string;
  price: number | null;
  season: string;
  hasImage: boolean;
  /** 'neutral', `<family>:<lightness>`, the folded label when the vocabulary knows no family, or '' when unknown. */
  colourClass: string;
  /** ln(price), NaN when unknown. */
  logPrice: number;
}

export interface RawTraits {
  department: string;
  usage: string;
  colour: string;
  price: number | null;
  season: string;
  hasImage: boolean;
}

/** The palette class of a resolved colour: neutrals go with everything; other colours by family and lightness. */
export function colourClassOf(label: string, resolved: ColourResolution = resolveColour(label)): string {
  if (!label.trim()) return '';
  if (resolved.neutral) return 'neutral';
  return resolved.family ? `${resolved.family}:${resolved.lightness}` : fold(label);
}

/** Traits from raw labels, resolved by the built-in vocabulary (the service passes a store's own resolutions). */
export function traitsOf(raw: RawTraits, resolved?: { audience: string; colourClass: string }): Traits {
  return {
    audience: resolved?.audience ?? resolveAudience(raw.department).audience,
    usage: fold(raw.usage),
    season: fold(raw.season),
    price: raw.price,
    hasImage: raw.hasImage,
    colourClass: resolved?.colourClass ?? colourClassOf(raw.colour),
    logPrice: raw.price && raw.price > 0 ? Math.log(raw.price) : Number.NaN,
  };
}

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

/** Whether two department labels may meet in complete the look (audiences resolved by the built-in vocabulary). */
export function departmentsFit(source: string, candidate: string): boolean {
  return audiencesFit(resolveAudience(source).audience, resolveAudience(candidate).audience);
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
  const [sFamily, sLightness] = s.split(':');
  const [cFamily, cLightness] = c.split(':');
  if (sFamily === cFamily) return 0.8;
  if (HARMONY.has(pair(sFamily, cFamily))) return 0.6;
  // Two colours that do not harmonise clash less when one is light and the other dark.
  const contrast =
    sLightness && cLightness && sLightness !== cLightness && sLightness !== 'medium' && cLightness !== 'medium';
  return contrast ? 0.4 : 0.3;
}

export function colourScore(source: string, candidate: string): number {
  return colourClassScore(colourClassOf(source), colourClassOf(candidate));
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
