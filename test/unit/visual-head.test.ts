import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, it } from 'node:test';
import sharp from 'sharp';
import { COLOUR_BINS, foregroundColours, GREY_LEVELS } from '../../src/vision/colour-descriptor.js';
import { DEFAULT_HEAD_PATH, EmbeddingHead } from '../../src/vision/embedding-head.js';
import { StoreVisualIndex } from '../../src/modules/visual/store-visual-index.js';
import { kthLargest } from '../../src/storage/kth-largest.js';
import type { VisionClient } from '../../src/vision/vision-client.js';
import { loadConfig } from '../../src/config.js';
import { imageHeadPath } from '../../src/container.js';
import { DEFAULT_MODEL_PATH } from '../../src/vision/embedder.js';
import { compileFilters } from '../../src/catalog/filters.js';

async function rgbOf(svgBody: string, backdrop: string, size = 224) {
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="${size}" height="${size}"><rect width="${size}" height="${size}" fill="${backdrop}"/>${svgBody}</svg>`;
  return new Uint8Array(await sharp(Buffer.from(svg)).removeAlpha().raw().toBuffer());
}
const dot = (a: Float32Array, b: Float32Array) => a.reduce((s, x, i) => s + x * b[i], 0);
const circle = (fill: string) => `<circle cx="112" cy="112" r="70" fill="${fill}"/>`;

describe('foreground colours', () => {
  it('describe the product, not its backdrop', async () => {
    const onWhite = foregroundColours(await rgbOf(circle('#c81414'), '#ffffff'), 224, 224);
    const onGrey = foregroundColours(await rgbOf(circle('#c81414'), '#9a9a9a'), 224, 224);
    const onBeige = foregroundColours(await rgbOf(circle('#c81414'), '#e8dcc0'), 224, 224);
    const blueOnWhite = foregroundColours(await rgbOf(circle('#1432c8'), '#ffffff'), 224, 224);
    assert.equal(onWhite.length, COLOUR_BINS);
    assert.ok(Math.abs(dot(onWhite, onWhite) - 1) < 1e-5, 'a unit vector');
    assert.ok(dot(onWhite, onGrey) > 0.95, `red on white vs red on grey: ${dot(onWhite, onGrey)}`);
    assert.ok(dot(onWhite, onBeige) > 0.95, `red on white vs red on beige: ${dot(onWhite, onBeige)}`);
    assert.ok(dot(onWhite, blueOnWhite) < 0.2, `red vs blue: ${dot(onWhite, blueOnWhite)}`);
  });

  it('fall back to the whole image when it is all background, and take any size down to 1×1', async () => {
    const white = foregroundColours(new Uint8Array(224 * 224 * 3).fill(255), 224, 224);
    assert.ok(Math.abs(dot(white, white) - 1) < 1e-5);
    assert.ok(white[GREY_LEVELS - 1] > 0.99, 'all weight on the lightest grey level');
    const one = foregroundColours(Uint8Array.of(200, 20, 20), 1, 1);
    assert.ok(Math.abs(dot(one, one) - 1) < 1e-5);
    const wide = foregroundColours(await rgbOf(circle('#c81414'), '#ffffff', 300), 300, 300);
    assert.ok(wide.every(Number.isFinite));
  });
});

describe('embedding head', () => {
  it('loads the shipped head: at most 256 dimensions, its identity naming the weights', () => {
    const head = EmbeddingHead.load(DEFAULT_HEAD_PATH);
    assert.ok(head.dimensions <= 256 && head.dimensions > 0, String(head.dimensions));
    assert.match(head.identity, /^fashion-head@[0-9a-f]{12}$/);
    const backbone = new Float32Array(head.manifest.backbone_dimensions).fill(1 / Math.sqrt(1280));
    const colours = new Float32Array(COLOUR_BINS).fill(1 / Math.sqrt(COLOUR_BINS));
    const out = head.apply(backbone, colours);
    assert.ok(Math.abs(dot(out, out) - 1) < 1e-4, 'shape² + colour² weights make a unit vector');
  });

  it('refuses a manifest whose weights do not match, naming the file', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'vitrine-head-'));
    try {
      const manifest = JSON.parse(fs.readFileSync(DEFAULT_HEAD_PATH, 'utf8'));
      fs.writeFileSync(path.join(dir, 'head.json'), JSON.stringify({ ...manifest, shape_dimensions: 7 }));
      fs.copyFileSync(
        path.join(path.dirname(DEFAULT_HEAD_PATH), manifest.weights_file),
        path.join(dir, manifest.weights_file),
      );
      assert.throws(() => EmbeddingHead.load(path.join(dir, 'head.json')), /head\.json: the weights hold \d+ numbers/);
      fs.writeFileSync(path.join(dir, 'head.json'), JSON.stringify({ ...manifest, colour_weight: 2 }));
      assert.throws(() => EmbeddingHead.load(path.join(dir, 'head.json')), /colour_weight/);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('kthLargest', () => {
  it('agrees with sorting, duplicates included', () => {
    let seed = 7;
    const random = () => (seed = (seed * 1103515245 + 12345) & 0x7fffffff) / 0x7fffffff;
    for (let trial = 0; trial < 500; trial++) {
      const n = 1 + Math.floor(random() * 300);
      const values = Float64Array.from({ length: n }, () => Math.floor(random() * 25));
      const k = 1 + Math.floor(random() * n);
      const expected = [...values].sort((a, b) => b - a)[k - 1];
      assert.equal(kthLargest(Float64Array.from(values), k), expected, `n=${n} k=${k}`);
    }
  });
});

describe('head configuration', () => {
  it('uses the shipped head with the shipped model only, honours none, and refuses a missing file', () => {
    const base = { DATABASE_URL: 'sqlite::memory:' };
    assert.equal(imageHeadPath(loadConfig(base)), DEFAULT_HEAD_PATH);
    assert.equal(imageHeadPath(loadConfig({ ...base, VITRINE_IMAGE_HEAD: 'none' })), undefined);
    assert.equal(imageHeadPath(loadConfig({ ...base, VITRINE_IMAGE_MODEL: DEFAULT_MODEL_PATH })), undefined);
    assert.throws(() => loadConfig({ ...base, VITRINE_IMAGE_HEAD: '/nowhere/head.json' }), /VITRINE_IMAGE_HEAD/);
    assert.throws(() => loadConfig({ ...base, VITRINE_IMAGE_MODEL: '/nowhere/model.onnx' }), /VITRINE_IMAGE_MODEL/);
  });
});

describe('visual rank', () => {
  it('answers exactly what a scan of every image answers, shortlist or not (families, filters, invisible products)', () => {
    let seed = 11;
    const random = () => (seed = (seed * 1103515245 + 12345) & 0x7fffffff) / 0x7fffffff;
    const vision = { clearColumns() {} } as unknown as VisionClient;
    const index = new StoreVisualIndex('k', 'm', 4);
    const catalogue: Array<{ code: string; visible: boolean; family: string; red: boolean; scale: number }> = [];
    for (let p = 0; p < 3000; p++) {
      const code = `P${String(p).padStart(4, '0')}`;
      const visible = random() >= 0.1;
      const parent = random() < 0.3 ? `F${Math.floor(random() * 200)}` : null;
      const red = random() < 0.5;
      const scale = 0.5 + Math.floor(random() * 3) * 0.25;
      index.setProduct(code, visible ? 'active' : 'inactive', parent, { Colour: red ? 'Red' : 'Blue' });
      index.setOwnerUrls('product', code, [`u${p}`]);
      index.setVector(`u${p}`, new Uint8Array(4), scale, vision);
      catalogue.push({ code, visible, family: parent ?? code, red, scale });
    }
    const round = (x: number) => Math.min(1, Math.max(1e-6, Math.round(x * 1e6) / 1e6));
    for (let trial = 0; trial < 60; trial++) {
      // Few distinct raw values: many equal scores, so ties by code are exercised too.
      const scores = Int32Array.from({ length: catalogue.length }, () => Math.floor(random() * 60) - 10);
      const groupVariants = (['parent', 'false', 'colour'] as const)[trial % 3];
      const redOnly = trial % 4 === 0;
      const limit = 1 + Math.floor(random() * 30);
      const offset = Math.floor(random() * 20);
      const got = index.rank(scores, {
        queryScale: 0.001,
        filters: redOnly ? compileFilters({ colour: 'Red' }) : [],
        offset,
        limit,
        groupVariants,
      });
      // The reference: every image scored, best per product or family (ties to the smaller code).
      const bestOf = new Map<string, { code: string; score: number }>();
      catalogue.forEach((item, p) => {
        if (scores[p] <= 0 || !item.visible || (redOnly && !item.red)) return;
        const score = scores[p] * item.scale * 0.001;
        const key =
          groupVariants === 'false'
            ? item.code
            : groupVariants === 'parent'
              ? item.family
              : `${item.family}|${item.red}`;
        const current = bestOf.get(key);
        if (!current || score > current.score || (score === current.score && item.code < current.code))
          bestOf.set(key, { code: item.code, score });
      });
      const expected = [...bestOf.values()]
        .map((hit) => ({ productCode: hit.code, score: round(hit.score) }))
        .sort((a, b) => b.score - a.score || (a.productCode < b.productCode ? -1 : 1))
        .slice(offset, offset + limit);
      assert.deepEqual(
        got.map(({ productCode, score }) => ({ productCode, score })),
        expected,
        `trial ${trial}`,
      );
    }
  });
});
