/** How FTS5 reads a document and a query's word: its tokens, their weighted frequencies, the document's length. */

/** Lower-cased words of letters and digits with their diacritics removed (FTS5's unicode61, remove_diacritics 2). */
export function foldedTokens(text: string): string[] {
  const folded = /^[\x20-\x7e]*$/.test(text)
    ? text.toLowerCase()
    : text
        .normalize('NFD')
        .replace(/\p{M}+/gu, '')
        .toLowerCase();
  return folded.split(/[^\p{L}\p{N}\p{Co}]+/u).filter((token) => token !== '');
}

/** Each distinct word's weighted frequency (Σ column weight per occurrence, as bm25 sums them) and the document's length in words. */
export function weighted(columns: readonly string[], weights: readonly number[]) {
  const frequencies = new Map<string, number>();
  let length = 0;
  columns.forEach((text, column) => {
    const weight = weights[column] ?? 1;
    for (const token of foldedTokens(text)) {
      frequencies.set(token, (frequencies.get(token) ?? 0) + weight);
      length++;
    }
  });
  return { frequencies, length };
}
