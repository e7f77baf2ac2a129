import { createRequire } from 'node:module';
import type sharpModule from 'sharp';

let loaded: typeof sharpModule | undefined;

/**
 * sharp, loaded on the first image an API process handles (an upload's dimensions, a thumbnail) or
 * before its first vision thread starts: libvips holds ~20 MB of resident memory per process
 * (measured: +6 MB anonymous, +13 MB mapped), which an API process that never touches an image
 * should not carry. Loaded synchronously on the main thread, and before any vision thread (which
 * imports sharp itself): the library is then initialised once, by the main thread, as it was when
 * every process loaded it at start — never by two threads at once.
 */
export function loadSharp(): typeof sharpModule {
  return (loaded ??= createRequire(import.meta.url)('sharp') as typeof sharpModule);
}
