import fs from 'node:fs';
import path from 'node:path';
import { Readable } from 'node:stream';
import { AwsClient } from 'aws4fetch';
import { DependencyUnavailableError } from '../../errors.js';

/** An inclusive byte range, as HTTP ranges are. */
export interface ByteRange {
  start: number;
  end: number;
}

/**
 * Where uploaded media bytes live, by content key (`<sha256>.<ext>`). One interface, two homes: the
 * local disk (default) and an S3-compatible bucket. Objects are immutable: a key is its content.
 */
export interface MediaStore {
  readonly description: string;
  /** The object's size, or undefined when it is not stored. */
  stat(key: string): Promise<{ size: number } | undefined>;
  /** Stores a finished local file under `key` (the file is consumed: moved or uploaded, then removed). */
  putFile(key: string, filePath: string, contentType: string, sha256: string): Promise<void>;
  /** The object's bytes, whole or one range. */
  read(key: string, range?: ByteRange): Promise<Readable>;
}

/** Objects under `<root>/<first two hex digits>/<key>`, written by an atomic rename. */
export class LocalMediaStore implements MediaStore {
  readonly description: string;

  constructor(private readonly root: string) {
    this.description = `local disk ${root}`;
  }

  #path(key: string) {
    return path.join(this.root, key.slice(0, 2), key);
  }

  async stat(key: string) {
    try {
      const stats = await fs.promises.stat(this.#path(key));
      return { size: stats.size };
    } catch {
      return undefined;
    }
  }

  async putFile(key: string, filePath: string) {
    const target = this.#path(key);
    await fs.promises.mkdir(path.dirname(target), { recursive: true });
    try {
      await fs.promises.rename(filePath, target);
    } catch (error) {
      // Another file system: copy beside the target, then rename, so a reader never sees half a file.
      if ((error as NodeJS.ErrnoException).code !== 'EXDEV') throw error;
      const partial = `${target}.${process.pid}.partial`;
      await fs.promises.copyFile(filePath, partial);
      await fs.promises.rename(partial, target);
      await fs.promises.rm(filePath, { force: true });
    }
  }

  async read(key: string, range?: ByteRange) {
    return fs.createReadStream(this.#path(key), range ? { start: range.start, end: range.end } : {});
  }
}

export interface S3Settings {
  /** e.g. https://s3.eu-west-3.amazonaws.com, or a local S3-compatible server; unset: AWS by region. */
  endpoint?: string;
  bucket: string;
  region: string;
  prefix: string;
  accessKeyId: string;
  secretAccessKey: string;
}

/**
 * An S3-compatible bucket (AWS S3, MinIO, R2, …), path-style addressing, requests signed with
 * SigV4 by aws4fetch. The bytes go out as a stream with their SHA-256 as the signed payload hash.
 */
export class S3MediaStore implements MediaStore {
  readonly description: string;
  readonly #client: AwsClient;
  readonly #base: string;

  constructor(private readonly settings: S3Settings) {
    this.#client = new AwsClient({
      accessKeyId: settings.accessKeyId,
      secretAccessKey: settings.secretAccessKey,
      service: 's3',
      region: settings.region,
      retries: 2,
    });
    const endpoint = (settings.endpoint ?? `https://s3.${settings.region}.amazonaws.com`).replace(/\/+$/, '');
    this.#base = `${endpoint}/${encodeURIComponent(settings.bucket)}/${settings.prefix}`;
    this.description = `S3 bucket ${settings.bucket} at ${endpoint}`;
  }

  async #request(key: string, init: RequestInit) {
    try {
      return await this.#client.fetch(`${this.#base}${key}`, init);
    } catch (error) {
      throw new DependencyUnavailableError(`media storage unreachable: ${(error as Error).message}`);
    }
  }

  async stat(key: string) {
    const response = await this.#request(key, { method: 'HEAD' });
    if (response.status === 404) return undefined;
    if (!response.ok) throw new DependencyUnavailableError(`media storage answered ${response.status} to HEAD`);
    return { size: Number(response.headers.get('content-length') ?? 0) };
  }

  async putFile(key: string, filePath: string, contentType: string, sha256: string) {
    const { size } = await fs.promises.stat(filePath);
    const response = await this.#request(key, {
      method: 'PUT',
      body: Readable.toWeb(fs.createReadStream(filePath)) as ReadableStream,
      headers: {
        'content-type': contentType,
        'content-length': String(size),
        'x-amz-content-sha256': sha256,
      },
      duplex: 'half',
    } as RequestInit);
    await response.body?.cancel();
    if (!response.ok) throw new DependencyUnavailableError(`media storage answered ${response.status} to PUT`);
    await fs.promises.rm(filePath, { force: true });
  }

  async read(key: string, range?: ByteRange) {
    const response = await this.#request(key, {
      method: 'GET',
      headers: range ? { range: `bytes=${range.start}-${range.end}` } : {},
    });
    if (!response.ok || !response.body)
      throw new DependencyUnavailableError(`media storage answered ${response.status} to GET`);
    return Readable.fromWeb(response.body as import('node:stream/web').ReadableStream);
  }
}

/** Reads a whole object into memory (catalogue images: at most 10 MB). */
export async function readObject(store: MediaStore, key: string): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of await store.read(key)) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}
