// The two text packages ship no type declarations; these describe what Vitrine uses of them.
declare module 'snowball-stemmers' {
  export function newStemmer(algorithm: string): { stem(word: string): string };
  export function algorithms(): string[];
}
declare module 'stopword' {
  const lists: Record<string, string[]>;
  export = lists;
}
