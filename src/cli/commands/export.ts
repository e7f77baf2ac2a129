import fs from 'node:fs';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { Command } from 'commander';
import type { ExportFormat } from '../../modules/products/product-export.js';
import { PRODUCT_STATUSES } from '../../catalog/statuses.js';
import { fail, printResult } from '../output.js';
import { formatCount as n, withContainer } from '../command-context.js';

/** `vitrine export`: every product of a store to a file that imports back unchanged. */
export function registerExportCommand(program: Command): void {
  program
    .command('export')
    .description(
      'write every product of a store, with all attributes and Status, to a file that imports back unchanged',
    )
    .requiredOption('--store <uuid>', 'store uuid')
    .argument('<file>', 'the file to write (.ndjson or .csv; - for stdout)')
    .option('--format <format>', 'ndjson or csv (default: from the file name, else ndjson)')
    .option('--status <status>', 'only products with this status')
    .option('--json', 'print a summary as one JSON object')
    .action(async (file: string, options: { store: string; format?: string; status?: string; json?: boolean }) => {
      const { EXPORT_FORMATS } = await import('../../modules/products/product-export.js');
      const format = (options.format ?? (file.toLowerCase().endsWith('.csv') ? 'csv' : 'ndjson')) as ExportFormat;
      if (!EXPORT_FORMATS.includes(format)) fail(`--format must be one of ${EXPORT_FORMATS.join(', ')}`);
      if (options.status !== undefined && !(PRODUCT_STATUSES as readonly string[]).includes(options.status))
        fail(`--status must be one of ${PRODUCT_STATUSES.join(', ')}, got "${options.status}"`);
      if (file === '-' && options.json) fail('--json needs a file: stdout carries the export');
      const started = performance.now();
      const result = await withContainer(async (c) => {
        const store = await c.stores.getStore(options.store);
        const out = file === '-' ? process.stdout : fs.createWriteStream(file);
        let bytes = 0;
        let lines = 0;
        const counted = async function* (pages: AsyncIterable<string>) {
          for await (const page of pages) {
            bytes += Buffer.byteLength(page);
            lines += page.split('\n').length - 1;
            yield page;
          }
        };
        await pipeline(Readable.from(counted(c.productExport.pages(store, { format, status: options.status }))), out, {
          end: file !== '-',
        });
        return { bytes, lines };
      });
      const products = format === 'csv' ? Math.max(result.lines - 1, 0) : result.lines;
      const seconds = Math.round((performance.now() - started) / 10) / 100;
      if (file !== '-')
        printResult(
          !!options.json,
          { file, format, products, bytes: result.bytes, seconds },
          `${n(products)} products written to ${file} (${format}, ${n(result.bytes)} bytes) in ${seconds} s`,
        );
    });
}
