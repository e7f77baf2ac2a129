import fs from 'node:fs';
import path from 'node:path';
import { createHash } from 'node:crypto';
import { DEFAULT_TAGGER_PATH, TAGGER_FIELDS, type TaggerField, type TaggerManifest } from '../src/vision/tagger.js';
import {
  atThreshold,
  calibrationError,
  crossValidateField,
  DEFAULT_TAGGER_FIT,
  fitSoftmax,
  thresholdFor,
  topConfusions,
} from './fit-tagger.js';
import { FASHION_IMAGES, servedVectors } from './datasets.js';
import { tagTargets } from './tagger-targets.js';

// Trains the tagger shipped in models/tagger (npm run train:tagger): per field (type, colour,
// audience) a calibrated softmax over the served image vectors of the 3,988 labelled photos, the
// labels read through the catalog vocabulary (garment concept, colour family, audience).
// 1. served vectors (backbone + fashion head), quantized as the images table stores them;
// 2. 5-fold cross-validation per field: out-of-fold predictions, the temperature fitted on them;
// 3. the weights fitted on every photo, written with the temperature and the cross-validated figures.
const FOLDS = 5;
/** Classes with fewer photos than this are not predicted (too few to learn or to judge). */
const MIN_PER_CLASS = 12;
/** The precision each field's default auto-apply threshold is chosen for. */
const TARGET_PRECISION: Record<TaggerField, number> = { type: 0.95, colour: 0.9, audience: 0.95 };

if (!fs.existsSync(FASHION_IMAGES)) {
  console.error(`train-tagger: ${FASHION_IMAGES} not found (the shared datasets are needed to train)`);
  process.exit(1);
}
const started = performance.now();
const seconds = () => ((performance.now() - started) / 1000).toFixed(0);

const photos = tagTargets();
const { vectors, model, zeroPoint } = await servedVectors(photos.map((p) => fs.readFileSync(p.file)));
console.log(`served vectors of ${photos.length} photos (${model}): ${seconds()} s`);

const round = (x: number) => Math.round(x * 1000) / 1000;
const parts: Float32Array[] = [];
let offset = 0;
const fields = {} as TaggerManifest['fields'];
for (const field of TAGGER_FIELDS) {
  const counts = new Map<string, number>();
  for (const photo of photos) if (photo[field]) counts.set(photo[field], (counts.get(photo[field]) ?? 0) + 1);
  const classes = [...counts]
    .filter(([, n]) => n >= MIN_PER_CLASS)
    .map(([c]) => c)
    .sort();
  const index = new Map(classes.map((c, i) => [c, i]));
  const usable = photos.map((p, i) => i).filter((i) => index.has(photos[i][field] ?? ''));
  const x = usable.map((i) => vectors[i]);
  const y = usable.map((i) => index.get(photos[i][field]!)!);
  const { predictions, temperature } = crossValidateField(x, y, classes.length, FOLDS, DEFAULT_TAGGER_FIT, (f) =>
    console.log(`${field}: fold ${f + 1}/${FOLDS} (${seconds()} s)`),
  );
  const threshold = thresholdFor(predictions, TARGET_PRECISION[field]) ?? 0.99;
  const at = atThreshold(predictions, threshold);
  const confusions = topConfusions(predictions, classes, 5);
  console.log(
    `${field}: ${classes.length} classes, ${x.length} photos; temperature ${temperature.toFixed(3)}; accuracy ${round(atThreshold(predictions, 0).precision)}; at ${threshold}: precision ${round(at.precision)}, coverage ${round(at.coverage)}; ECE ${round(calibrationError(predictions))}`,
  );
  const weights = fitSoftmax(x, y, classes.length, DEFAULT_TAGGER_FIT);
  parts.push(weights);
  fields[field] = {
    classes,
    temperature: round(temperature * 1000) / 1000,
    offset,
    default_threshold: threshold,
    cross_validation: {
      photos: x.length,
      accuracy: round(atThreshold(predictions, 0).precision),
      precision_at_default: round(at.precision),
      coverage_at_default: round(at.coverage),
      expected_calibration_error: round(calibrationError(predictions)),
      top_confusions: confusions,
    },
  };
  offset += weights.length;
}

const all = new Float32Array(offset);
let at = 0;
for (const part of parts) {
  all.set(part, at);
  at += part.length;
}
const bytes = Buffer.from(all.buffer, all.byteOffset, all.byteLength);
const manifest: TaggerManifest = {
  format: 'vitrine-tagger/1',
  model,
  zero_point: zeroPoint,
  dimensions: vectors[0].length,
  weights_file: 'tagger.f32',
  fields,
  training: {
    command: 'npm run train:tagger',
    data: `fashion-images: ${photos.length} labelled photos (articleType, baseColour, gender read through the catalog vocabulary)`,
    options: { ...DEFAULT_TAGGER_FIT, folds: FOLDS, minPerClass: MIN_PER_CLASS },
    weights_sha256: createHash('sha256').update(bytes).digest('hex'),
  },
};
const folder = path.dirname(DEFAULT_TAGGER_PATH);
fs.mkdirSync(folder, { recursive: true });
fs.writeFileSync(path.join(folder, 'tagger.f32'), bytes);
fs.writeFileSync(DEFAULT_TAGGER_PATH, `${JSON.stringify(manifest, null, 2)}\n`);
console.log(`wrote ${DEFAULT_TAGGER_PATH} in ${seconds()} s`);
