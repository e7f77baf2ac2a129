import { foldText, stem } from '../../search/analyzer.js';

/**
 * Label folding shared by every vocabulary lookup: accents and case fold, punctuation (`-`, `.`,
 * `'`, `/`, `&`, …) separates words, and each word is reduced to its singular, so that `T-Shirts`,
 * `Tshirts`, `t shirt` and `T-SHIRT` meet. A label is looked up by its words and by its words run
 * together (`t shirt` and `tshirt`).
 */

/** Labels longer than this are cut before folding (a 500-character label is data, not a category). */
export const MAX_LABEL_LENGTH = 120;

/** The folded, singular words of a label ("Flip-Flops" -> ["flip", "flop"]). */
export function labelWords(label: string): string[] {
  return foldText(label.slice(0, MAX_LABEL_LENGTH))
    .split(/[^\p{L}\p{N}]+/u)
    .filter((word) => word.length > 0)
    .map(stem);
}

/** The lookup key of a label: its folded singular words run together ("T-Shirts" -> "tshirt"). */
export function labelKey(label: string): string {
  return labelWords(label).join('');
}

/** A label as the report shows it when it must be folded for matching (trimmed, spaces collapsed). */
export function tidyLabel(label: string): string {
  return label.trim().replace(/\s+/g, ' ');
}

/** Whether a label carries any word at all (empty, whitespace-only and punctuation-only labels do not). */
export function hasWords(label: string): boolean {
  return labelWords(label).length > 0;
}

/**
 * The alternatives of a label written as several ("Hat/beanie", "Shirts & Tops", "Ties and
 * Cufflinks"): the parts, in order. A label without a separator gives no parts.
 */
export function labelParts(label: string): string[] {
  const parts = label
    .split(/\s*(?:\/|&|\+|,|;|\|)\s*|\s+(?:and|or)\s+/i)
    .map((part) => part.trim())
    .filter((part) => hasWords(part));
  return parts.length > 1 ? parts : [];
}
