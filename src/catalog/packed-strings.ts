/**
 * Strings as one text and the offset each ends at. Posted to another thread, an array of strings is
 * cloned one string at a time on receipt: a 1M-product store's codes and attribute values (2.5M
 * strings) held the receiving event loop for a second; one text and one transferred array do not.
 */
export interface PackedStrings {
  text: string;
  ends: Int32Array;
}

export function packStrings(strings: readonly string[]): PackedStrings {
  const ends = new Int32Array(strings.length);
  let end = 0;
  for (let i = 0; i < strings.length; i++) ends[i] = end += strings[i].length;
  return { text: strings.join(''), ends };
}

export function stringAt(packed: PackedStrings, i: number): string {
  return packed.text.slice(i === 0 ? 0 : packed.ends[i - 1], packed.ends[i]);
}
