/**
 * Strings as their UTF-8 bytes end to end and the byte offset each ends at. Posted to another thread,
 * an array of strings is cloned one string at a time on receipt, and even one long text is copied:
 * a 1M-product store's codes and attribute values (2.5M strings) held the receiving event loop for a
 * second as strings, 130 ms a half as one text each; bytes and offsets are transferred, not copied,
 * and a string is decoded only when asked for.
 */
export interface PackedStrings {
  bytes: Uint8Array;
  ends: Int32Array;
}

export function packStrings(strings: readonly string[]): PackedStrings {
  const ends = new Int32Array(strings.length);
  let end = 0;
  for (let i = 0; i < strings.length; i++) ends[i] = end += Buffer.byteLength(strings[i]);
  // Not from Node's shared pool: its own ArrayBuffer, which a thread can transfer.
  const bytes = Buffer.allocUnsafeSlow(end);
  let at = 0;
  for (const string of strings) at += bytes.write(string, at);
  return { bytes, ends };
}

/** Buffers of the byte arrays posted to this thread (a transferred Buffer arrives as a plain Uint8Array). */
const buffers = new WeakMap<Uint8Array, Buffer>();

export function stringAt(packed: PackedStrings, i: number): string {
  const { bytes } = packed;
  let buffer = Buffer.isBuffer(bytes) ? bytes : buffers.get(bytes);
  if (!buffer) buffers.set(bytes, (buffer = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength)));
  return buffer.toString('utf8', i === 0 ? 0 : packed.ends[i - 1], packed.ends[i]);
}
