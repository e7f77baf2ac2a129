import type { KnownAudience } from '../catalog/vocabulary/audiences.js';
import type { ColourFamily } from '../catalog/vocabulary/colours.js';

/**
 * What Vitrine knows of one catalog language: how its text is analysed (the Snowball stemmer, stop
 * words, elisions, compounds, and the forms a stemmer falls short on) and its catalog vocabulary
 * (garment labels, audience and colour words). One data file per language beside this one; English
 * keeps its vocabulary in catalog/vocabulary (garments.ts, audiences.ts, colours.ts).
 */
export interface LanguageData {
  /** BCP 47 primary tag. */
  code: string;
  name: string;
  /** The `snowball-stemmers` algorithm; English uses Vitrine's light plural stemmer instead. */
  stemmer: string;
  /** The `stopword` package's list for the language (ISO 639-3). */
  stopwords: string;
  /** Stop words of that list that are catalog words here ("haut" is a top in French): kept. */
  keep?: string;
  /** Elided articles and prepositions (`l'`, `dell'`): dropped from the word they are glued to. */
  elisions?: string;
  /** Whether words are written together (`Sommerkleid`): a compound is also indexed as its catalog words. */
  compounds?: boolean;
  /** Whether the noun that names the product comes first ("Robe rouge", "Vestido de fiesta"). */
  headFirst?: boolean;
  /** Words that end the part of a title naming the product ("avec", "mit"). */
  titleStops?: string;
  /**
   * Forms the stemmer does not bring to their word (irregular plurals, feminines, abbreviations):
   * `form word, form word; …` as written in catalogs, each mapped before stemming.
   */
  forms?: string;
  /** Garment labels per English garment concept (garments.ts): `label, label, …`. */
  garments: Record<string, string>;
  /** Words naming each audience. */
  audiences: Partial<Record<KnownAudience, string>>;
  /** Colour names per family (the first is the family's own name). */
  colours: Partial<Record<ColourFamily, string>>;
}
