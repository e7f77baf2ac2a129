import fs from 'node:fs';
import path from 'node:path';
import { createHash } from 'node:crypto';
import { DEFAULT_HEAD_PATH, type HeadManifest } from '../src/vision/embedding-head.js';
import { DEFAULT_FIT, fitHead } from './fit-visual-head.js';
import { crossValidate } from './cross-validate.js';
import { FASHION_IMAGES, fashionMnistTrainingSet, labelledPhotos } from './datasets.js';

// Trains the fashion head shipped in models/fashion-head (npm run train:visual-head). Deterministic:
// the folds use a fixed seed and the fit has no randomness, so the same data gives the same bytes.
// 1. backbone features of the 3,988 labelled photos and 1,000 Fashion-MNIST training images;
// 2. 5-fold cross-validation of each colour weight (the head never scores a photo it was fitted on);
// 3. the weight with the best type + type-and-colour precision under cross-validation;
// 4. the head fitted on every image with that weight, written with its manifest.
const COLOUR_WEIGHTS = [0, 0.1, 0.2, 0.3];
const FASHION_MNIST_TRAINING_IMAGES = 1000;

if (!fs.existsSync(FASHION_IMAGES)) {
  console.error(`train-visual-head: ${FASHION_IMAGES} not found (the shared datasets are needed to train)`);
  process.exit(1);
}
const started = performance.now();
const seconds = () => ((performance.now() - started) / 1000).toFixed(0);
const photos = await labelledPhotos();
const extra = await fashionMnistTrainingSet(FASHION_MNIST_TRAINING_IMAGES);
console.log(`features of ${photos.length} photos and ${extra.backbone.length} Fashion-MNIST images: ${seconds()} s`);

const figures = crossValidate(photos, extra, DEFAULT_FIT, [null, ...COLOUR_WEIGHTS], 5, (f) =>
  console.log(`fold ${f + 1}/5 (${seconds()} s)`),
);
const fmt = ([a, b]: [number, number]) => `${a.toFixed(3)} / ${b.toFixed(3)}`;
for (const [w, f] of figures)
  console.log(
    `${w === null ? 'backbone only' : `colour weight ${w}`}: unseen gallery ${fmt(f.unseenGallery)}, whole catalogue ${fmt(f.wholeCatalogue)}`,
  );
const score = (w: number) => figures.get(w)!.unseenGallery[0] + figures.get(w)!.unseenGallery[1];
const colourWeight = COLOUR_WEIGHTS.reduce((best, w) => (score(w) > score(best) ? w : best));
console.log(`chosen colour weight: ${colourWeight}`);

const fitted = fitHead(
  {
    backbone: [...photos.map((p) => p.features.backbone), ...extra.backbone],
    colours: [...photos.map((p) => p.features.colours), ...extra.colours],
    shapeLabel: [...photos.map((p) => p.type), ...extra.shapeLabel],
    colourLabel: [...photos.map((p) => p.colour), ...extra.colourLabel],
  },
  { ...DEFAULT_FIT, colourWeight },
);
const round = (x: number) => Math.round(x * 1000) / 1000;
const weights = Buffer.alloc(fitted.weights.length * 4);
fitted.weights.forEach((x, i) => weights.writeFloatLE(x, i * 4));
const manifest: HeadManifest = {
  ...fitted.manifest,
  weights_file: 'head.f32',
  training: {
    command: 'npm run train:visual-head',
    data: [
      `fashion-images: ${photos.length} labelled photos (articleType, baseColour)`,
      `fashion-mnist: the first ${FASHION_MNIST_TRAINING_IMAGES} images of the training split (class only)`,
    ],
    options: { ...DEFAULT_FIT, colourWeight },
    weights_sha256: createHash('sha256').update(weights).digest('hex'),
    cross_validation: Object.fromEntries(
      [...figures].map(([w, f]) => [
        w === null ? 'backbone' : `colour_weight_${w}`,
        {
          unseen_gallery: f.unseenGallery.map(round),
          whole_catalogue: f.wholeCatalogue.map(round),
        },
      ]),
    ),
  },
};
const folder = path.dirname(DEFAULT_HEAD_PATH);
fs.mkdirSync(folder, { recursive: true });
fs.writeFileSync(path.join(folder, 'head.f32'), weights);
fs.writeFileSync(DEFAULT_HEAD_PATH, `${JSON.stringify(manifest, null, 2)}\n`);
console.log(
  `wrote ${DEFAULT_HEAD_PATH} (${manifest.shape_dimensions} + ${manifest.colour_dimensions} dimensions) in ${seconds()} s`,
);
