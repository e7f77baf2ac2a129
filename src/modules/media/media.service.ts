import { createHash, randomUUID } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type { Readable } from 'node:stream';
import { Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { fileTypeFromBuffer } from 'file-type';
import rangeParser from 'range-parser';
import { loadSharp } from '../../vision/lazy-sharp.js';
import type { StorageHandle } from '../../storage/database.js';
import { InvalidRequestError, NotFoundError, PayloadTooLargeError } from '../../errors.js';
import { formatMegapixels, MAX_IMAGE_PIXELS } from '../../catalog/limits.js';
import type { Store } from '../stores/store.js';
import {
  ACCEPTED_MEDIA,
  cleanFileName,
  MAX_MEDIA_BYTES,
  MEDIA_KEY,
  MEDIA_LIMITS,
  mediaKeyOfUrl,
  mediaTypeOfExt,
  mediaTypeOfMime,
  type MediaType,
} from './media-types.js';
import { readObject, type ByteRange, type MediaStore } from './media-store.js';
import * as repo from './media.repository.js';

export interface StoredMedia {
  index: number;
  file_name: string;
  url: string;
  media_key: string;
  sha256: string;
  content_type: string;
  media_type: MediaType['kind'];
  bytes: number;
  /** False when the store already had these bytes: the same object and URL are answered. */
  created: boolean;
}

export interface MediaFailure {
  index: number;
  file_name: string;
  reason: 'empty_file' | 'unsupported_type' | 'too_large' | 'undecodable_image' | 'invalid_file_name';
  details: string;
}

export interface UploadResult {
  uploaded: number;
  failed: number;
  files: StoredMedia[];
  error_info: MediaFailure[];
}

/** One file of an upload: its client name and its bytes (a multipart part or a file on disk). */
export interface IncomingFile {
  fileName: string | undefined;
  stream: Readable;
  /** True when the sender's stream was cut off at the upload limit. */
  truncated?: () => boolean;
}

/** A media object opened for an HTTP answer. */
export interface OpenedMedia {
  stream: Readable;
  contentType: string;
  size: number;
  etag: string;
  /** The range served (206), or undefined for the whole object. */
  range?: ByteRange;
}

const SNIFF_BYTES = 4100;
const MB = 1024 * 1024;

/**
 * Photo and media upload (README › Media upload): each file is stored once by its SHA-256 in the media store and
 * recorded for the store that uploaded it; Vitrine serves it at `/media/<sha256>.<ext>`. The image
 * pipeline reads such URLs from the media store instead of fetching them.
 */
export class MediaService {
  constructor(
    private readonly storage: StorageHandle,
    private readonly objects: MediaStore,
    private readonly settings: { dataDir: string },
  ) {}

  /** Throws when the media store cannot be reached (readiness): a lookup of an object that is never stored. */
  async probe(): Promise<void> {
    await this.objects.stat('readiness-probe');
  }

  get description() {
    return this.objects.description;
  }

  /** Stores every file of an upload; each stored completely or reported failed. */
  async upload(store: Store, files: AsyncIterable<IncomingFile>, baseUrl: string): Promise<UploadResult> {
    const result: UploadResult = { uploaded: 0, failed: 0, files: [], error_info: [] };
    let index = 0;
    for await (const file of files) {
      const outcome = await this.storeFile(store, file, baseUrl, index++);
      if ('reason' in outcome) result.error_info.push(outcome);
      else result.files.push(outcome);
    }
    result.uploaded = result.files.length;
    result.failed = result.error_info.length;
    return result;
  }

  /** Stores one file; never throws for the file's own faults (they come back as a failure). */
  async storeFile(store: Store, file: IncomingFile, baseUrl: string, index = 0): Promise<StoredMedia | MediaFailure> {
    const name = cleanFileName(file.fileName);
    const failure = (reason: MediaFailure['reason'], details: string): MediaFailure => ({
      index,
      file_name: name ?? JSON.stringify(file.fileName ?? ''),
      reason,
      details,
    });
    if (name === undefined) {
      file.stream.resume();
      return failure('invalid_file_name', 'the file name contains control characters (NUL, newline, …)');
    }
    const tmpDir = path.resolve(this.settings.dataDir, 'media-tmp');
    await fs.promises.mkdir(tmpDir, { recursive: true });
    const tmp = path.join(tmpDir, randomUUID());
    try {
      const hash = createHash('sha256');
      let size = 0;
      const head: Buffer[] = [];
      let headBytes = 0;
      let tooLarge = false;
      const meter = new Transform({
        transform(chunk: Buffer, _encoding, done) {
          size += chunk.length;
          if (size > MAX_MEDIA_BYTES) {
            tooLarge = true;
            done();
            return;
          }
          hash.update(chunk);
          if (headBytes < SNIFF_BYTES) {
            head.push(chunk);
            headBytes += chunk.length;
          }
          done(null, chunk);
        },
      });
      await pipeline(file.stream, meter, fs.createWriteStream(tmp));
      if (tooLarge || file.truncated?.())
        return failure('too_large', `the file is larger than ${MAX_MEDIA_BYTES / MB} MB, the largest upload accepted`);
      if (size === 0) return failure('empty_file', 'the file is empty (0 bytes)');

      const detected = await fileTypeFromBuffer(Buffer.concat(head));
      const type = mediaTypeOfMime(detected?.mime);
      if (!type) {
        const said = name.includes('.') ? ` (its name says .${name.split('.').pop()})` : '';
        return failure(
          'unsupported_type',
          `the content is ${detected ? detected.mime : 'not a recognised media type'}${said}; accepted: ${ACCEPTED_MEDIA}, told from the bytes, not the name`,
        );
      }
      if (size > type.maxBytes)
        return failure(
          'too_large',
          `${type.kind === 'image' ? 'an image' : `a ${type.ext.toUpperCase()} file`} may be at most ${type.maxBytes / MB} MB, this one is ${size} bytes`,
        );
      if (type.kind === 'image') {
        try {
          const { width = 0, height = 0 } = await loadSharp()(tmp, { limitInputPixels: false }).metadata();
          if (width * height > MAX_IMAGE_PIXELS)
            return failure(
              'too_large',
              `the image has ${width}×${height} pixels; at most ${formatMegapixels(MAX_IMAGE_PIXELS)}`,
            );
          if (width === 0 || height === 0) return failure('undecodable_image', 'the image has no dimensions');
        } catch (error) {
          return failure('undecodable_image', `the image cannot be decoded: ${(error as Error).message}`);
        }
      }

      const sha256 = hash.digest('hex');
      const mediaKey = `${sha256}.${type.ext}`;
      if (!(await this.objects.stat(mediaKey))) await this.objects.putFile(mediaKey, tmp, type.mime, sha256);
      const created = await repo.insertMedia(this.storage.db, {
        store_id: store.id,
        sha256,
        media_key: mediaKey,
        content_type: type.mime,
        media_type: type.kind,
        bytes: size,
        file_name: name,
        created_at: new Date().toISOString(),
      });
      return {
        index,
        file_name: name,
        url: `${baseUrl}/media/${mediaKey}`,
        media_key: mediaKey,
        sha256,
        content_type: type.mime,
        media_type: type.kind,
        bytes: size,
        created,
      };
    } finally {
      file.stream.resume();
      await fs.promises.rm(tmp, { force: true });
    }
  }

  /**
   * The object of `/media/<key>`, whole or the one range asked for (several ranges: the whole
   * object, as RFC 9110 allows). Unknown key: 404; a range past the end: 416 (PayloadTooLarge is not
   * it: the caller answers 416 from `unsatisfiable`).
   */
  async open(key: string, rangeHeader: string | undefined): Promise<OpenedMedia | { unsatisfiable: number }> {
    const match = MEDIA_KEY.exec(key);
    const type = match ? mediaTypeOfExt(match[2]) : undefined;
    const stat = type ? await this.objects.stat(key) : undefined;
    if (!type || !match || !stat) throw new NotFoundError('media not found', 'media');
    let range: ByteRange | undefined;
    if (rangeHeader) {
      const ranges = rangeParser(stat.size, rangeHeader, { combine: true });
      if (ranges === -1) return { unsatisfiable: stat.size };
      if (Array.isArray(ranges) && ranges.type === 'bytes' && ranges.length === 1) range = ranges[0];
    }
    return {
      stream: await this.objects.read(key, range),
      contentType: type.mime,
      size: stat.size,
      etag: `"${match[1]}"`,
      range,
    };
  }

  /**
   * The bytes of an uploaded image a catalogue URL names (`…/media/<sha256>.<ext>`), read from the
   * media store without a network fetch; undefined when the URL is not one of ours. The content
   * hash is the name, so the bytes are those of the URL whatever host it gives.
   */
  async localImage(url: string): Promise<Buffer | undefined> {
    const key = mediaKeyOfUrl(url);
    if (!key || !(await repo.mediaKeyKnown(this.storage.db, key))) return undefined;
    const stat = await this.objects.stat(key);
    if (!stat) return undefined;
    if (stat.size > MEDIA_LIMITS.image)
      throw new PayloadTooLargeError('the uploaded file is larger than an image may be');
    return readObject(this.objects, key);
  }
}

/** The base of the URLs answered for uploads: the configured public address, else the request's. */
export function mediaBaseUrl(publicUrl: string | undefined, request?: { protocol: string; host: string }): string {
  if (publicUrl) return publicUrl;
  if (!request) throw new InvalidRequestError('no public address known', 'VITRINE_PUBLIC_URL');
  return `${request.protocol}://${request.host}`;
}
