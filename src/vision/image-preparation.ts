import sharp, { type Metadata } from 'sharp';
import { formatMegapixels, MAX_IMAGE_PIXELS } from '../catalog/limits.js';
import { ImageRejectedError } from './image-rejection.js';

/** Formats accepted for search by photo and for catalogue images (CONTRACT §8); `heif` is how sharp names AVIF. */
export const ACCEPTED_FORMATS = new Set(['jpeg', 'png', 'webp', 'gif', 'heif']);
/** CONTRACT §8: over MAX_IMAGE_PIXELS is refused (decompression bombs never get decoded). */
const MAX_PIXELS = MAX_IMAGE_PIXELS;

/**
 * Decodes an image into `size`×`size` RGB pixels (alpha flattened on white, `cover` resize, as the
 * model was evaluated). The header is read first so a pixel bomb is refused before any decoding, and
 * truncated or corrupt files fail instead of yielding half an image.
 */
export async function decodeToRgb(bytes: Uint8Array, size: number): Promise<Buffer> {
  let metadata: Metadata;
  try {
    metadata = await sharp(bytes, { limitInputPixels: false }).metadata();
  } catch {
    throw new ImageRejectedError('not_an_image', 'the file is not an image');
  }
  if (!metadata.format || !ACCEPTED_FORMATS.has(metadata.format)) {
    throw new ImageRejectedError(
      'unsupported_format',
      `unsupported image format ${metadata.format ?? 'unknown'}: send JPEG, PNG, WebP, GIF or AVIF`,
    );
  }
  if ((metadata.width ?? 0) * (metadata.height ?? 0) > MAX_PIXELS) {
    throw new ImageRejectedError(
      'too_many_pixels',
      `the image has ${metadata.width}×${metadata.height} pixels, more than ${formatMegapixels(MAX_PIXELS)}`,
    );
  }
  try {
    return await sharp(bytes, { limitInputPixels: MAX_PIXELS, failOn: 'truncated', animated: false })
      .flatten({ background: '#ffffff' })
      .resize(size, size, { fit: 'cover' })
      .removeAlpha()
      .toColourspace('srgb')
      .raw()
      .toBuffer();
  } catch (error) {
    throw new ImageRejectedError('undecodable', `the image cannot be decoded: ${(error as Error).message}`);
  }
}
