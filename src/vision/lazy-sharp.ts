import type sharpModule from 'sharp';

let loading: Promise<typeof sharpModule> | undefined;

/**
 * sharp, loaded on the first image an API process handles (an upload's dimensions, a thumbnail):
 * libvips holds ~20 MB of resident memory per process (measured: +6 MB anonymous, +13 MB mapped), which an
 * API process that never touches an image should not carry. Photo queries and embedding decode in
 * the vision thread, which imports sharp itself.
 */
export function loadSharp(): Promise<typeof sharpModule> {
  return (loading ??= import('sharp').then((module) => module.default));
}
