import { processOwnerId } from '../../jobs/process-owner.js';
import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { sql } from 'kysely';
import type { StorageHandle } from '../../storage/database.js';
import { InvalidInputError, NotFoundError } from '../../errors.js';
import { fetchToFile } from '../../net/safe-fetch.js';
import { MAX_IMPORT_BYTES } from '../../catalog/limits.js';
import { parseFormat, type ImportFormat } from '../../catalog/import-formats.js';
import { claimLeases, renewLease, type LeaseQueue } from '../../jobs/lease-queue.js';
import { PollingWorker, SILENT_JOB_LOG, type JobLog, type WorkerErrorLog } from '../../jobs/workers.js';
import type { StoresService } from '../stores/stores.service.js';
import type { ProductsService } from '../products/products.service.js';
import { IMPORT_MODES, importCatalog, type ImportMode, type ImportSummary } from './catalog-import.js';
import * as repo from './imports.repository.js';

export interface ImportRequestOptions {
  format?: string;
  delimiter?: string;
  encoding?: BufferEncoding;
  mode?: ImportMode;
  dryRun?: boolean;
}

/** The `mode` an operator asked for (default replace), or a 422 naming the field. */
export function parseImportMode(value: unknown): ImportMode {
  if (value === undefined || value === null || value === '') return 'replace';
  if (typeof value === 'string' && (IMPORT_MODES as readonly string[]).includes(value)) return value as ImportMode;
  throw new InvalidInputError(`mode must be one of ${IMPORT_MODES.join(', ')}, got ${JSON.stringify(value)}`, 'mode');
}

/** A yes/no option given as JSON or as a multipart text field. */
export function parseFlag(value: unknown, field: string): boolean {
  if (value === undefined || value === null || value === '') return false;
  if (value === true || value === 'true' || value === '1') return true;
  if (value === false || value === 'false' || value === '0') return false;
  throw new InvalidInputError(`${field} must be true or false, got ${JSON.stringify(value)}`, field);
}

/** A running import renews its lease this often; a lease lapses (and another process takes the import over) after LEASE_MS. */
const LEASE_MS = 60_000;
const RENEW_MS = 15_000;

/** Queued imports, and running ones whose process died (lease lapsed): re-importing is idempotent. */
const IMPORT_QUEUE: LeaseQueue = {
  table: 'imports',
  keys: ['id'],
  ready: () => sql`status IN ('queued', 'running')`,
  orderBy: 'created_at',
  onClaim: (now) => sql`status = 'running', started_at = ${now}`,
};

/**
 * Imports queued through the admin API: the file is kept under the data directory, a row in
 * `imports` records it, and the `imports.run` worker of any process leases queued imports one at a
 * time, so a restart or a crash loses no import.
 */
export class ImportsService {
  readonly worker: PollingWorker;
  readonly #workerId = processOwnerId('imports');

  constructor(
    private readonly storage: StorageHandle,
    private readonly products: ProductsService,
    private readonly stores: StoresService,
    private readonly settings: { dataDir: string; allowPrivateFetch: boolean },
    onError?: WorkerErrorLog,
    private readonly log: JobLog = SILENT_JOB_LOG,
  ) {
    this.worker = new PollingWorker('imports.run', 1000, () => this.runQueued(), onError);
  }

  /** Import jobs of every store by status (the vitrine_import_jobs metric). */
  countByStatus(): Promise<Record<string, number>> {
    return repo.countByStatus(this.storage.db);
  }

  #dir() {
    const dir = path.resolve(this.settings.dataDir, 'imports');
    fs.mkdirSync(dir, { recursive: true });
    return dir;
  }

  async #queue(
    storeId: string,
    id: string,
    format: ImportFormat,
    source: string,
    filePath: string,
    options: ImportRequestOptions,
  ) {
    await repo.insertImport(this.storage.db, {
      id,
      store_id: storeId,
      status: 'queued',
      format,
      source,
      file_path: filePath,
      options: JSON.stringify({
        delimiter: options.delimiter,
        encoding: options.encoding,
        mode: options.mode,
        dryRun: options.dryRun,
      }),
      summary: null,
      error: null,
      created_at: new Date().toISOString(),
      started_at: null,
      finished_at: null,
    });
    this.worker.wake();
    return { import_id: id, status: 'queued' };
  }

  async fromUpload(storeUuid: string, fileName: string, stream: Readable, options: ImportRequestOptions) {
    const store = await this.stores.getStore(storeUuid);
    const format = parseFormat(options.format, fileName);
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
    try {
      parsed = new URL(url);
    } catch {
      parsed = undefined;
    }
    if (!parsed || (parsed.protocol !== 'http:' && parsed.protocol !== 'https:'))
      throw new InvalidInputError('only absolute http(s) URLs are fetched', 'url');
    const format = parseFormat(options.format, parsed.pathname);
    const id = randomUUID();
    const filePath = path.join(this.#dir(), `${id}.${format}`);
    try {
      await fetchToFile(url, filePath, {
        maxBytes: MAX_IMPORT_BYTES,
        timeoutMs: 60_000,
        maxRedirects: 3,
        allowPrivate: this.settings.allowPrivateFetch,
      });
    } catch (error) {
      fs.rmSync(filePath, { force: true });
      throw error;
    }
    return this.#queue(store.id, id, format, `url:${url}`, filePath, options);
  }

  async get(id: string) {
    const row = await repo.findImport(this.storage.db, id);
    if (!row) throw new NotFoundError(`import ${id} not found`, 'import_id');
    return {
      import_id: row.id,
      store_uuid: row.store_id,
      status: row.status,
      format: row.format,
      source: row.source,
      progress: { rows: Number(row.progress_rows) },
      summary: row.summary ? (JSON.parse(row.summary) as ImportSummary) : null,
      error: row.error,
      created_at: row.created_at,
      started_at: row.started_at,
      finished_at: row.finished_at,
    };
  }

  /** The rejected rows of a finished import, as the path of an NDJSON file (undefined when none were written). */
  async rejects(id: string): Promise<string | undefined> {
    const row = await repo.findImport(this.storage.db, id);
    if (!row) throw new NotFoundError(`import ${id} not found`, 'import_id');
    const rejectsPath = `${row.file_path}.rejects.ndjson`;
    return fs.existsSync(rejectsPath) ? rejectsPath : undefined;
  }

  /** Runs queued imports until none is left; returns how many ran. */
  async runQueued(): Promise<number> {
    let ran = 0;
    for (;;) {
      const [claimed] = await claimLeases(this.storage, IMPORT_QUEUE, this.#workerId, 1, LEASE_MS);
      if (!claimed) return ran;
      await this.#run(String(claimed.id));
      ran++;
    }
  }

  async #run(id: string) {
    const row = (await repo.findImport(this.storage.db, id))!;
    const rejects = fs.createWriteStream(`${row.file_path}.rejects.ndjson`);
    const renewal = setInterval(() => {
      void renewLease(this.storage, IMPORT_QUEUE, { id }, this.#workerId, LEASE_MS).catch(() => {});
    }, RENEW_MS);
    let lastProgress = 0;
    const update = (values: Parameters<typeof repo.updateHeldImport>[3]) =>
      repo.updateHeldImport(this.storage.db, id, this.#workerId, values);
    const job = { job: 'import', import_id: id, store_uuid: row.store_id, format: row.format };
    try {
      const store = await this.stores.getStore(row.store_id);
      const options = JSON.parse(row.options) as ImportRequestOptions;
      this.log.info({ ...job, mode: options.mode ?? 'replace', dry_run: !!options.dryRun }, 'import started');
      const summary = await importCatalog(this.products, store, row.file_path, {
        format: row.format as ImportFormat,
        delimiter: options.delimiter,
        encoding: options.encoding,
        mode: options.mode,
        dryRun: options.dryRun,
        onReject: (reject) => rejects.write(`${JSON.stringify(reject)}\n`),
        onProgress: (rows) => {
          if (Date.now() - lastProgress < 500) return;
          lastProgress = Date.now();
          void update({ progress_rows: rows }).catch(() => {});
        },
      });
      await update({
        status: 'done',
        progress_rows: summary.rows,
        summary: JSON.stringify(summary),
        finished_at: new Date().toISOString(),
        claimed_until: null,
      });
      const { rows, inserted, updated, unchanged, failed, seconds } = summary;
      this.log.info({ ...job, rows, inserted, updated, unchanged, failed, seconds }, 'import finished');
    } catch (error) {
      this.log.error({ ...job, err: error }, 'import failed');
      await update({
        status: 'failed',
        error: (error as Error).message,
        finished_at: new Date().toISOString(),
        claimed_until: null,
      });
    } finally {
      clearInterval(renewal);
      await new Promise((resolve) => rejects.end(resolve));
    }
  }
}
