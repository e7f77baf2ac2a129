import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Command } from 'commander';
import { createProgress, fail, printResult } from '../output.js';
import { cliMediaBase, formatCount as n, listenAddress, withContainer } from '../command-context.js';

/** The shipped demo catalog (samples/demo, relative to the package). */
const DEMO_DIR = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../../samples/demo');

/** `vitrine demo`: a demo store from the shipped sample catalog and photos. */
export function registerDemoCommand(program: Command): void {
  program
    .command('demo')
    .description(
      'create a demo store from the shipped sample catalog and photos, index the photos, and print a token and three requests to try',
    )
    .option('--json', 'print one JSON object')
    .action(async (options: { json?: boolean }) => {
      const catalog = path.join(DEMO_DIR, 'catalog.csv');
      if (!fs.existsSync(catalog)) fail(`the demo catalog is missing (${catalog})`);
      const result = await withContainer(async (c) => {
        const { createDemoStore } = await import('../../modules/demo/demo-store.js');
        const embedding = createProgress('indexing photos', 'images');
        const demo = await createDemoStore(c, {
          demoDir: DEMO_DIR,
          mediaBaseUrl: await cliMediaBase(c.config),
          onPhotoProgress: (indexed, total) => embedding.update(indexed, indexed, total),
        });
        embedding.stop();
        return { ...demo, base: listenAddress(c.config) };
      });
      const { created, summary, base } = result;
      const auth = `-H "Authorization: Bearer ${created.api_token}"`;
      const store = created.store_uuid;
      const requests = [
        `curl -s ${auth} "${base}/v1/search?store_uuid=${store}&query=red+dress"`,
        `curl -s ${auth} -F image=@${path.join(DEMO_DIR, 'photos', 'DEMO-027.jpg')} "${base}/v1/visual-search?store_uuid=${store}&limit=5"`,
        `curl -s ${auth} "${base}/v1/complementary?store_uuid=${store}&product_code=DEMO-027&limit=3"`,
      ];
      printResult(
        !!options.json,
        {
          ...created,
          products: summary.inserted + summary.updated + summary.unchanged,
          photos: result.photos,
          try: requests,
          console: `${base}/console/`,
        },
        [
          `Demo store created: ${n(summary.inserted + summary.updated + summary.unchanged)} products, ${n(result.photos.indexed)} photos indexed for search by photo.`,
          `store_uuid: ${store}`,
          `api_token:  ${created.api_token}   (shown once)`,
          '',
          `Start the server (\`npx vitrine serve\` or \`npm start\`), then try:`,
          '',
          '# text search',
          requests[0],
          '# search by photo (a navy dress)',
          requests[1],
          '# complete the look for that dress',
          requests[2],
          '',
          `Or open the console at ${base}/console/ and sign in with the token.`,
        ],
      );
    });
}
