import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, it } from 'node:test';

// The compiled test runs from build/test/unit; the sources it reads are the project's src/.
const SRC = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../src');

function sourceFiles(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(full);
    return entry.name.endsWith('.ts') ? [full] : [];
  });
}

const files = sourceFiles(SRC).map((file) => ({
  file: path.relative(SRC, file).split(path.sep).join('/'),
  text: fs.readFileSync(file, 'utf8'),
}));
// Migrations are history: they keep the SQL of the day they were written.
const outsideCatalog = files.filter((f) => !f.file.startsWith('catalog/') && !f.file.startsWith('storage/migrations/'));

/** The lines of `text` matching `pattern`, as `file:line: text`. */
function hits(pattern: RegExp, scope = outsideCatalog): string[] {
  return scope.flatMap(({ file, text }) =>
    text.split('\n').flatMap((line, i) => (pattern.test(line) ? [`${file}:${i + 1}: ${line.trim()}`] : [])),
  );
}

describe('every catalog rule has one home in src/catalog', () => {
  const rules: Array<[rule: string, pattern: RegExp, home: string]> = [
    [
      'image fields',
      /\/\^?Image URL|'Image URL \d'\s*[,\]]|`Image URL \$\{/,
      'catalog/product-fields.ts (isImageField, productImageUrls)',
    ],
    [
      'blank',
      /=== null \|\| \(typeof \w+ === 'string' && \w+\.trim\(\) === ''\)/,
      'catalog/product-fields.ts (isBlank)',
    ],
    ['visible statuses', /=== 'new' \|\|.*=== 'active'|\['new', 'active'\]/, 'catalog/statuses.ts (isVisibleStatus)'],
    ['collection visibility', /< \w+\.minProducts/, 'catalog/collection-visibility.ts'],
    ['paging bounds', /(offset|limit): Type\.Integer\(/, 'catalog/paging.ts (Paging, PageLimit)'],
    ['non-text fields', /'Selling Price',\s*$/, 'catalog/product-fields.ts (NON_TEXT_FIELDS, isShopperText)'],
  ];
  for (const [rule, pattern, home] of rules) {
    it(`${rule}: only in ${home}`, () => {
      assert.deepEqual(hits(pattern), [], `a second definition of "${rule}"; read it from ${home}`);
    });
  }

  it('limit messages are built from the limit, not written as literals', () => {
    assert.deepEqual(
      hits(/['`"][^'`"]*at most \d[\d,]*\b/).filter(
        // Rules that are not limits: the price rule's decimals (catalog/price.ts) and the fetcher's redirects.
        (line) => !/at most 4 decimals|at most 3 redirects/.test(line),
      ),
      [],
    );
  });
});

describe('one concern per file', () => {
  it('no source file is over 400 lines', () => {
    const long = files
      .map(({ file, text }) => ({ file, lines: text.split('\n').length - (text.endsWith('\n') ? 1 : 0) }))
      .filter(({ lines }) => lines > 400)
      .map(({ file, lines }) => `${file}: ${lines} lines`);
    assert.deepEqual(long, []);
  });
});
