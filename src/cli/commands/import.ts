import fs from 'node:fs';
import type { Command } from 'commander';
import type { ImportMode, ImportSummary } from '../../modules/imports/catalog-import.js';
import type { ImageFolderSummary } from '../../modules/media/image-folder.js';
import { formatOf, parseEncoding } from '../../catalog/import-formats.js';
import { createProgress, fail, printResult } from '../output.js';
import { cliMediaBase, formatCount as n, withContainer } from '../command-context.js';
import type { IndexFreshness } from '../../modules/changes/index-freshness.js';
import type { Store } from '../../modules/stores/store.js';

function summaryLines(summary: ImportSummary): string[] {
  const counts = (record: Record<string, number>) =>
    Object.entries(record)
      .map(([key, value]) => `${key} ${n(value)}`)
      .join(', ');
  return [
    `${n(summary.rows)} rows${summary.dry_run ? ' (dry run: nothing written)' : ''}: ${n(summary.inserted)} inserted, ${n(summary.updated)} updated, ${n(summary.unchanged)} unchanged, ${n(summary.failed)} failed in ${summary.seconds} s (${summary.mode})`,
    ...(summary.failed > 0 ? [`  rejected rows: ${counts(summary.failures)}`] : []),
    ...(Object.keys(summary.statuses).length > 0 ? [`  products by status: ${counts(summary.statuses)}`] : []),
    ...(summary.hint ? [summary.hint] : []),
  ];
}

function imageLines(images: ImageFolderSummary, dryRun: boolean): string[] {
  return [
    `${n(images.files)} image files: ${n(images.matched)} named a product, ${n(images.uploaded)} uploaded, ${n(images.products)} products ${dryRun ? 'would get' : 'got'} images, ${n(images.failed)} failed in ${images.seconds} s`,
    ...(images.failed > 0
      ? [
          `  failures: ${Object.entries(images.failures)
            .map(([k, v]) => `${k} ${v}`)
            .join(', ')}`,
        ]
      : []),
    ...(images.unmatched > 0
      ? [
          `  ${n(images.unmatched)} files name no product (expected {product_code}.jpg or {product_code}_2.jpg), e.g. ${images.unmatched_files.slice(0, 5).join(', ')}`,
        ]
      : []),
  ];
}

/**
 * Polls the store's indexes until the shared ones have applied everything (the in-memory ones follow
 * on their next request). Fails past `limitSeconds`, naming what is still pending.
 */
async function waitForIndexes(freshness: IndexFreshness, store: Store, limitSeconds: number) {
  const started = Date.now();
  let lastReport = started;
  for (;;) {
    const { pending, caught_up } = await freshness.of(store);
    if (caught_up) return { seconds: Math.round((Date.now() - started) / 100) / 10 };
    const left = Object.entries(pending)
      .filter(([, count]) => count > 0)
      .map(([index, count]) => `${index} ${n(count)}`)
      .join(', ');
    if (Date.now() - started > limitSeconds * 1000)
      fail(
        `the indexes had not applied the import after ${limitSeconds} s (pending: ${left}); is \`vitrine serve\` or \`vitrine worker\` running?`,
      );
    if (Date.now() - lastReport > 5000) {
      process.stderr.write(`waiting for the indexes: ${left}\n`);
      lastReport = Date.now();
    }
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

/** `vitrine import`: a catalog file and/or a folder of photos. */
export function registerImportCommand(program: Command): void {
  program
    .command('import')
    .description(
      "import a catalog file (.csv, .json array, .ndjson) through the store's mapping profile, and/or a folder of photos named {product_code}.jpg, {product_code}_2.jpg, …",
    )
    .requiredOption('--store <uuid>', 'store uuid')
    .argument('[file]', 'the catalog file')
    .option('--images <dir>', "upload the photos of this folder and set the matched products' Image URL n")
    .option(
      '--mode <mode>',
      'replace (default: each row is the whole product) or merge (only the fields in the file change)',
      'replace',
    )
    .option('--dry-run', 'report what would be inserted, updated, unchanged or rejected; write nothing')
    .option('--json', 'print the summary as one JSON object')
    .option('--rejects <file>', 'write every rejected row (NDJSON: line, product_code, reason, details, row)')
    .option('--delimiter <char>', 'CSV delimiter (default: detected from the header)')
    .option('--encoding <name>', 'text encoding: utf-8 (default), latin1, utf-16le')
    .option(
      '--wait [seconds]',
      'then wait until every index (search, vocabulary, collections, photos) has applied the import (at most this long, default 3600); a running `vitrine serve` or `vitrine worker` applies it',
    )
    .action(
      async (
        file: string | undefined,
        options: {
          store: string;
          images?: string;
          mode: string;
          dryRun?: boolean;
          json?: boolean;
          rejects?: string;
          delimiter?: string;
          encoding?: string;
          wait?: string | boolean;
        },
      ) => {
        const waitSeconds =
          options.wait === undefined ? undefined : options.wait === true ? 3600 : Number(options.wait);
        if (waitSeconds !== undefined && !(Number.isFinite(waitSeconds) && waitSeconds > 0))
          fail('--wait takes a number of seconds above 0');
        if (!file && !options.images) fail('name a catalog file, or a folder of photos with --images DIR');
        if (file && !fs.existsSync(file)) fail(`cannot read ${file}: no such file`);
        if (options.images && !fs.statSync(options.images, { throwIfNoEntry: false })?.isDirectory())
          fail(`--images ${options.images}: not a folder`);
        let encoding: BufferEncoding | undefined;
        let mode: ImportMode = 'replace';
        try {
          encoding = parseEncoding(options.encoding, '--encoding');
          mode = (await import('../../modules/imports/imports.service.js')).parseImportMode(options.mode);
        } catch (error) {
          fail((error as Error).message.replace(/^mode /, '--mode '));
        }
        if (options.delimiter !== undefined && options.delimiter.replace('\\t', '\t').length !== 1)
          fail('--delimiter must be one character (\\t for tab)');
        const dryRun = options.dryRun === true;
        const rejects = options.rejects ? fs.createWriteStream(options.rejects) : undefined;
        const progress = createProgress();
        const [{ importCatalog }, { importImageFolder }] = await Promise.all([
          import('../../modules/imports/catalog-import.js'),
          import('../../modules/media/image-folder.js'),
        ]);
        try {
          const result = await withContainer(async (c) => {
            const store = await c.stores.getStore(options.store);
            const summary = file
              ? await importCatalog(c.products, store, file, {
                  format: formatOf(file),
                  mode,
                  dryRun,
                  delimiter: options.delimiter?.replace('\\t', '\t'),
                  encoding,
                  onReject: (reject) => rejects?.write(`${JSON.stringify(reject)}\n`),
                  onProgress: progress.update,
                })
              : undefined;
            progress.stop();
            const uploads = createProgress('uploading', 'files');
            const images = options.images
              ? await importImageFolder({
                  media: c.media,
                  products: c.products,
                  productsRead: c.productsRead,
                  store,
                  dir: options.images,
                  baseUrl: await cliMediaBase(c.config),
                  dryRun,
                  onProgress: (done, total) => uploads.update(done, done, total),
                })
              : undefined;
            uploads.stop();
            const caughtUp =
              waitSeconds !== undefined && !dryRun ? await waitForIndexes(c.freshness, store, waitSeconds) : undefined;
            return { summary, images, caughtUp };
          });
          progress.stop();
          const { summary, images, caughtUp } = result;
          if (options.json && summary?.hint) process.stderr.write(`${summary.hint}\n`);
          printResult(
            !!options.json,
            {
              ...(summary ?? {}),
              ...(images ? { images } : {}),
              ...(caughtUp ? { indexes_caught_up_seconds: caughtUp.seconds } : {}),
            },
            [
              ...(summary ? summaryLines(summary) : []),
              ...(images ? imageLines(images, dryRun) : []),
              ...(caughtUp ? [`every index applied it ${caughtUp.seconds} s after the import ended`] : []),
            ],
          );
        } finally {
          progress.stop();
          await new Promise((resolve) => (rejects ? rejects.end(resolve) : resolve(undefined)));
        }
      },
    );
}
