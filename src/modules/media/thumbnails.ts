import { createHash } from 'node:crypto';
import fs from 'node:fs/promises';
import path from 'node:path';
import { loadSharp } from '../../vision/lazy-sharp.js';
import { MAX_IMAGE_BYTES, MAX_IMAGE_PIXELS } from '../../catalog/limits.js';
import { DependencyUnavailableError, InvalidInputError, NotFoundError } from '../../errors.js';
import { FetchAbortedError, fetchToBuffer } from '../../net/safe-fetch.js';

/** The widths and heights (a square box) a thumbnail comes in: a size asked for is rounded up to one. */
export const THUMBNAIL_SIZES = [48, 96, 160, 320] as const;

export interface Thumbnail {
  bytes: Buffer;
  etag: string;
}

const sha256 = (text: string | Buffer) => createHash('sha256').update(text).digest('hex');

/**
 * Thumbnails of a store's product and asset images, served by Vitrine itself, so that a page (the
 * console) loads no image from another host and its Content-Security-Policy can say `img-src 'self'`.
 * Made once per image and size with sharp (WebP, inside a square box, never enlarged), kept on disk
 * under the data directory by a hash of the URL and size, answered with the ETag of their bytes.
 * Only images the store references (its image catalog) are made: not an open image proxy.
 */
export class Thumbnails {
  readonly #making = new Map<string, Promise<Thumbnail>>();

  constructor(
    private readonly deps: {
      dir: string;
      allowPrivateFetch: boolean;
      /** Whether the store references this image (a product's Image URL n or an asset link). */
      knowsImage: (storeId: string, url: string) => Promise<boolean>;
      /** An upload of this service (/media/…): read from the media store, not fetched. */
      localImage: (url: string) => Promise<Buffer | undefined>;
    },
  ) {}

  static sizeFor(asked: number): number {
    return THUMBNAIL_SIZES.find((size) => size >= asked) ?? THUMBNAIL_SIZES[THUMBNAIL_SIZES.length - 1];
  }

  async of(storeId: string, url: string, asked: number): Promise<Thumbnail> {
    if (!(await this.deps.knowsImage(storeId, url)))
      throw new NotFoundError('no product or asset of this store has this image', 'url');
    const size = Thumbnails.sizeFor(asked);
    const key = sha256(`${size}\u0000${url}`);
    const file = path.join(this.deps.dir, key.slice(0, 2), `${key}.webp`);
    const kept = await fs.readFile(file).catch(() => undefined);
    if (kept) return { bytes: kept, etag: `"${sha256(kept).slice(0, 32)}"` };
    // One making per thumbnail however many pages ask for it at once.
    let making = this.#making.get(key);
    if (!making) {
      making = this.#make(url, size, file).finally(() => this.#making.delete(key));
      this.#making.set(key, making);
    }
    return making;
  }

  async #make(url: string, size: number, file: string): Promise<Thumbnail> {
    let source: Buffer;
    try {
      source =
        (await this.deps.localImage(url)) ??
        (await fetchToBuffer(url, {
          maxBytes: MAX_IMAGE_BYTES,
          timeoutMs: 10_000,
          maxRedirects: 3,
          allowPrivate: this.deps.allowPrivateFetch,
        }));
    } catch (error) {
      if (error instanceof FetchAbortedError) throw error;
      // The image's host failed or refused: a dependency of this answer, not the client's input.
      throw new DependencyUnavailableError(`the image could not be fetched: ${(error as Error).message}`);
    }
    let bytes: Buffer;
    try {
      bytes = await loadSharp()(source, { limitInputPixels: MAX_IMAGE_PIXELS })
        .rotate()
        .resize(size, size, { fit: 'inside', withoutEnlargement: true })
        .webp({ quality: 78 })
        .toBuffer();
    } catch {
      throw new InvalidInputError('the image at this URL cannot be decoded', 'url');
    }
    await fs.mkdir(path.dirname(file), { recursive: true });
    const partial = `${file}.${process.pid}.part`;
    await fs.writeFile(partial, bytes);
    await fs.rename(partial, file);
    return { bytes, etag: `"${sha256(bytes).slice(0, 32)}"` };
  }
}
