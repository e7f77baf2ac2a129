import fs from 'node:fs';
import { generateCatalog } from './lib/catalog-generator.js';
import { fmt, readStyles, skipWithoutShared } from './lib/harness.js';

// Writes a large catalog grown from the real 44k one, as NDJSON for `vitrine import` (its fields are
// the canonical ones: no mapping profile needed):
//   node build/bench/generate-catalog.js --products 1000000 --out /tmp/catalog-1m.ndjson [--seed 42]
if (skipWithoutShared('generate-catalog')) process.exit(0);

const arg = (name: string, fallback: string) => {
  const at = process.argv.indexOf(`--${name}`);
  return at >= 0 && process.argv[at + 1] ? process.argv[at + 1] : fallback;
};
const count = Number(arg('products', '1000000'));
const out = arg('out', `/tmp/catalog-${count}.ndjson`);
const seed = Number(arg('seed', '42'));
if (!Number.isInteger(count) || count <= 0) throw new Error('--products takes a whole number above 0');

const started = performance.now();
const stream = fs.createWriteStream(out);
const families = new Set<string>();
let written = 0;
for (const product of generateCatalog(readStyles(), count, seed)) {
  families.add(product.parent_code);
  if (!stream.write(`${JSON.stringify(product)}\n`))
    await new Promise<void>((resolve) => stream.once('drain', () => resolve()));
  written++;
}
await new Promise<void>((resolve) => stream.end(() => resolve()));
console.log(
  `${fmt(written)} products in ${fmt(families.size)} families (${fmt(written / families.size, 1)} SKUs each) → ${out} in ${fmt((performance.now() - started) / 1000, 1)} s`,
);
