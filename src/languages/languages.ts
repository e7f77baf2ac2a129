import { setImmediate as nextTurn } from 'node:timers/promises';
import type { LanguageData } from './language-data.js';
import { danish } from './data/da.js';
import { dutch } from './data/nl.js';
import { french } from './data/fr.js';
import { german } from './data/de.js';
import { italian } from './data/it.js';
import { portuguese } from './data/pt.js';
import { spanish } from './data/es.js';
import { swedish } from './data/sv.js';

export type { LanguageData } from './language-data.js';

/** English: its vocabulary lives in catalog/vocabulary; its analysis is Vitrine's light plural stemmer. */
const english: LanguageData = {
  code: 'en',
  name: 'English',
  stemmer: 'light',
  stopwords: '',
  garments: {},
  audiences: {},
  colours: {},
};

const ALL: readonly LanguageData[] = [english, french, german, spanish, italian, dutch, portuguese, swedish, danish];

/** The catalog languages Vitrine understands (BCP 47 primary tags), English first. */
export const SUPPORTED_LANGUAGES: readonly string[] = ALL.map((l) => l.code);
export const DEFAULT_LANGUAGE = 'en';

const BY_CODE = new Map(ALL.map((l) => [l.code, l]));

export function languageData(code: string): LanguageData {
  return BY_CODE.get(code) ?? english;
}

/** Every language but English (their vocabularies are data files). */
export const OTHER_LANGUAGES: readonly LanguageData[] = ALL.filter((l) => l.code !== 'en');

/** Every table `perLanguage` made, for `buildLanguageTables`. */
const LANGUAGE_TABLES: Array<(code: string) => unknown> = [];

/**
 * A table built from another language's data the first time that language is asked for (undefined for
 * English and unknown codes). Building stems every word of the data: ~100 ms for the eight languages,
 * which every process paid at start, a CLI command and an English-only store included.
 */
export function perLanguage<T>(build: (data: LanguageData) => T): (code: string) => T | undefined {
  const built = new Map<string, T>();
  const table = (code: string) => {
    let table = built.get(code);
    if (table === undefined && code !== DEFAULT_LANGUAGE && BY_CODE.has(code)) {
      table = build(BY_CODE.get(code)!);
      built.set(code, table);
    }
    return table;
  };
  LANGUAGE_TABLES.push(table);
  return table;
}

/**
 * Builds every language's tables now, one language a turn of the event loop. A serving process does
 * it in the background once it listens, so that no request pays for it: otherwise the first store
 * with a colour English does not place (a new store's first search or listing) built the eight
 * languages' colour words inside that request, 100–150 ms on 2 cores.
 */
export async function buildLanguageTables(): Promise<void> {
  for (const { code } of OTHER_LANGUAGES) {
    for (const table of LANGUAGE_TABLES) table(code);
    await nextTurn();
  }
}

/**
 * A language tag as the API and the CLI take it, to its supported primary tag ("fr", "FR", "fr-CA" ->
 * "fr"); undefined when it names no supported language.
 */
export function normalizeLanguage(tag: string): string | undefined {
  const primary = /^([a-z]{2,3})(?:[-_][a-z0-9]{1,8})*$/i.exec(tag.trim())?.[1]?.toLowerCase();
  return primary && BY_CODE.has(primary) ? primary : undefined;
}

/**
 * The order a store reads labels in: its own language first, then English, then the others (a French
 * store whose feed says `Dresses` still understands it; its own `Robe` is a dress, not a bathrobe).
 */
export function readingOrder(code: string): readonly string[] {
  const first = BY_CODE.has(code) ? code : DEFAULT_LANGUAGE;
  return [first, ...SUPPORTED_LANGUAGES.filter((c) => c !== first)];
}
