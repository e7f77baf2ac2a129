import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { StorageHandle } from '../../storage/database.js';
import { InvalidInputError, NotFoundError } from '../../errors.js';
import { fetchToFile } from '../../net/safe-fetch.js';
import type { StoresService } from '../stores/stores.service.js';
import type { ProductsService } from './products.service.js';
import { formatOf, importCatalog, IMPORT_FORMATS, type ImportFormat, type ImportSummary } from './catalog-import.js';

export interface ImportRequestOptions { format?: string; delimiter?: string; encoding?: BufferEncoding }
const MAX_IMPORT_BYTES = 2 * 1024 ** 3;

/**
 * Imports queued through the admin API: the file is kept under the data directory, a row in
 * `imports` records it, and a runner in each serving process claims queued imports one at a time
 * (an UPDATE from queued to running that only one process can win), so a restart loses no import.
 */
export class ImportsService {
  #timer: NodeJS.Timeout | undefined;
  #busy = false;

  constructor(
    private readonly storage: StorageHandle,
    private readonly products: ProductsService,
    private readonly stores: StoresService,
    private readonly settings: { dataDir: string; allowPrivateFetch: boolean },
  ) {}

  #dir() {
    const dir = path.resolve(this.settings.dataDir, 'imports');
    fs.mkdirSync(dir, { recursive: true });
    return dir;
  }

  #format(requested: string | undefined, name: string): ImportFormat {
    if (requested === undefined || requested === '') return formatOf(name);
    if (!(IMPORT_FORMATS as readonly string[]).includes(requested)) throw new InvalidInputError(`format must be one of ${IMPORT_FORMATS.join(', ')}`, 'format');
    return requested as ImportFormat;
  }

  async #queue(storeId: string, id: string, format: ImportFormat, source: string, filePath: string, options: ImportRequestOptions) {
    await this.storage.db.insertInto('imports').values({
      id, store_id: storeId, status: 'queued', format, source, file_path: filePath, options: JSON.stringify({ delimiter: options.delimiter, encoding: options.encoding }),
      summary: null, error: null, created_at: new Date().toISOString(), started_at: null, finished_at: null,
    }).execute();
    this.kick();
    return { import_id: id, status: 'queued' };
  }

  async fromUpload(storeUuid: string, fileName: string, stream: Readable, options: ImportRequestOptions) {
    const store = await this.stores.getStore(storeUuid);
    const format = this.#format(options.format, fileName);
    const id = randomUUID();
    const filePath = path.join(this.#dir(), `${id}.${format}`);
    await pipeline(stream, fs.createWriteStream(filePath));
    if ((stream as Readable & { truncated?: boolean }).truncated) {
      fs.rmSync(filePath, { force: true });
      throw new InvalidInputError('the upload is larger than the import size limit', 'file');
    }
    return this.#queue(store.id, id, format, `upload:${fileName}`, filePath, options);
  }

  async fromUrl(storeUuid: string, url: string, options: ImportRequestOptions) {
    const store = await this.stores.getStore(storeUuid);
    let parsed: URL | undefined;
    try { parsed = new URL(url); } catch { parsed = undefined; }
    if (!parsed || (parsed.protocol !== 'http:' && parsed.protocol !== 'https:')) throw new InvalidInputError('only absolute http(s) URLs are fetched', 'url');
    const format = this.#format(options.format, parsed.pathname);
    const id = randomUUID();
    const filePath = path.join(this.#dir(), `${id}.${format}`);
    try {
      await fetchToFile(url, filePath, { maxBytes: MAX_IMPORT_BYTES, timeoutMs: 60_000, maxRedirects: 3, allowPrivate: this.settings.allowPrivateFetch });
    } catch (error) {
      fs.rmSync(filePath, { force: true });
      throw error;
    }
    return this.#queue(store.id, id, format, `url:${url}`, filePath, options);
  }

  async get(id: string) {
    const row = await this.storage.db.selectFrom('imports').selectAll().where('id', '=', id).executeTakeFirst();
    if (!row) throw new NotFoundError(`import ${id} not found`, 'import_id');
    return {
      import_id: row.id, store_uuid: row.store_id, status: row.status, format: row.format, source: row.source,
      progress: { rows: Number(row.progress_rows) },
      summary: row.summary ? (JSON.parse(row.summary) as ImportSummary) : null,
      error: row.error, created_at: row.created_at, started_at: row.started_at, finished_at: row.finished_at,
    };
  }

  /** The rejected rows of a finished import, as NDJSON. */
  async rejects(id: string): Promise<string | undefined> {
    const row = await this.storage.db.selectFrom('imports').select('file_path').where('id', '=', id).executeTakeFirst();
    if (!row) throw new NotFoundError(`import ${id} not found`, 'import_id');
    const rejectsPath = `${row.file_path}.rejects.ndjson`;
    return fs.existsSync(rejectsPath) ? rejectsPath : undefined;
  }

  /** Runs queued imports until none is left; returns how many ran. */
  async runQueued(): Promise<number> {
    let ran = 0;
    for (;;) {
      const next = await this.storage.db.selectFrom('imports').select('id').where('status', '=', 'queued').orderBy('created_at').limit(1).executeTakeFirst();
      if (!next) return ran;
      const claimed = await this.storage.db.updateTable('imports').set({ status: 'running', started_at: new Date().toISOString() })
        .where('id', '=', next.id).where('status', '=', 'queued').executeTakeFirst();
      if (Number(claimed.numUpdatedRows) === 0) continue; // another process took it
      await this.#run(next.id);
      ran++;
    }
  }

  async #run(id: string) {
    const row = await this.storage.db.selectFrom('imports').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
    const rejects = fs.createWriteStream(`${row.file_path}.rejects.ndjson`);
    let lastProgress = 0;
    try {
      const store = await this.stores.getStore(row.store_id);
      const options = JSON.parse(row.options) as ImportRequestOptions;
      const summary = await importCatalog(this.products, store, row.file_path, {
        format: row.format as ImportFormat, delimiter: options.delimiter, encoding: options.encoding,
        onReject: (reject) => rejects.write(`${JSON.stringify(reject)}\n`),
        onProgress: (rows) => {
          if (Date.now() - lastProgress < 500) return;
          lastProgress = Date.now();
          void this.storage.db.updateTable('imports').set({ progress_rows: rows }).where('id', '=', id).execute().catch(() => {});
        },
      });
      await this.storage.db.updateTable('imports').set({ status: 'done', progress_rows: summary.rows, summary: JSON.stringify(summary), finished_at: new Date().toISOString() }).where('id', '=', id).execute();
    } catch (error) {
      await this.storage.db.updateTable('imports').set({ status: 'failed', error: (error as Error).message, finished_at: new Date().toISOString() }).where('id', '=', id).execute();
    } finally {
      await new Promise((resolve) => rejects.end(resolve));
    }
  }

  /** Starts working through the queue now (after an upload) rather than at the next tick. */
  kick() {
    if (!this.#timer || this.#busy) return;
    this.#busy = true;
    this.runQueued().catch(() => {}).finally(() => { this.#busy = false; });
  }

  start(intervalMs = 1000) {
    if (this.#timer) return;
    // An import left running by a process that died is queued again; re-importing is idempotent.
    const stale = new Date(Date.now() - 3600_000).toISOString();
    void this.storage.db.updateTable('imports').set({ status: 'queued' }).where('status', '=', 'running').where('started_at', '<', stale).execute().catch(() => {});
    this.#timer = setInterval(() => this.kick(), intervalMs);
    this.#timer.unref();
  }

  async stop() {
    if (this.#timer) clearInterval(this.#timer);
    this.#timer = undefined;
    while (this.#busy) await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
