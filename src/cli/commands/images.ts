import type { Command } from 'commander';
import { printResult } from '../output.js';
import { withContainer } from '../command-context.js';

/** `vitrine images status|retry`: the image pipeline of search by photo. */
export function registerImagesCommands(program: Command): void {
  const images = program.command('images').description('the image pipeline of search by photo');
  images
    .command('status')
    .description("how many of a store's images are pending, indexed or failed, and why the last ones failed")
    .requiredOption('--store <uuid>', 'store UUID')
    .option('--failures <n>', 'how many recent failures to list', (v) => Number.parseInt(v, 10), 20)
    .option('--json', 'print one JSON object')
    .action(async (options: { store: string; failures: number; json?: boolean }) => {
      const status = await withContainer((c) => c.visual.status(options.store, options.failures));
      printResult(!!options.json, status, [
        `images: ${status.images}  indexed: ${status.indexed}  pending: ${status.pending} (retrying ${status.retrying})  failed: ${status.failed}`,
        ...status.failures.map((f) => `${f.state.padEnd(8)} ${f.attempts}× ${f.url}  ${f.error ?? ''}`),
      ]);
    });
  images
    .command('retry')
    .description("queue a store's failed images again")
    .requiredOption('--store <uuid>', 'store UUID')
    .option('--json', 'print one JSON object')
    .action(async (options: { store: string; json?: boolean }) => {
      const result = await withContainer((c) => c.visual.retryFailed(options.store));
      printResult(!!options.json, result, `${result.requeued} failed images queued again`);
    });
}
