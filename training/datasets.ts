import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
import sharp from 'sharp';
import { DEFAULT_MODEL_PATH, OnnxEmbedder, type ImageFeatures } from '../src/vision/embedder.js';
import { DEFAULT_HEAD_PATH } from '../src/vision/embedding-head.js';
import { quantize } from '../src/vision/quantize.js';
import type { TrainingSet } from './fit-visual-head.js';
import type { LabelledPhoto } from './cross-validate.js';

export const SHARED = path.resolve(process.env.VITRINE_SHARED ?? '../shared');
export const FASHION_IMAGES = path.join(SHARED, 'datasets/fashion-images');
export const FASHION_MNIST = path.join(SHARED, 'datasets/fashion-mnist');

/** The backbone's features of each image (no head), 32 at a time on 2 threads. */
export async function backboneFeatures(images: Buffer[]): Promise<ImageFeatures[]> {
  const embedder = await OnnxEmbedder.load(DEFAULT_MODEL_PATH, 2);
  try {
    const out: ImageFeatures[] = [];
    for (let i = 0; i < images.length; i += 32) {
      for (const result of await embedder.features(images.slice(i, i + 32))) {
        if (result instanceof Error) throw result;
        out.push(result);
      }
    }
    return out;
  } finally {
    await embedder.close();
  }
}

/** The 3,988 labelled Myntra photos (labels.csv: id,filename,articleType,baseColour,…; no field is quoted). */
export function readPhotoFiles() {
  const lines = fs.readFileSync(path.join(FASHION_IMAGES, 'labels.csv'), 'utf8').trim().split('\n').slice(1);
  return lines.map((line) => {
    const [id, filename, type, colour] = line.split(',');
    return { id, file: path.join(FASHION_IMAGES, filename), type, colour };
  });
}

export async function labelledPhotos(): Promise<LabelledPhoto[]> {
  const files = readPhotoFiles();
  const features = await backboneFeatures(files.map((f) => fs.readFileSync(f.file)));
  return files.map((f, i) => ({ features: features[i], type: f.type, colour: f.colour }));
}

/** Fashion-MNIST images of one split as 28×28 grey PNGs with their class (0–9). */
export async function fashionMnist(split: 'train' | 't10k', count: number) {
  const images = zlib.gunzipSync(fs.readFileSync(path.join(FASHION_MNIST, `${split}-images-idx3-ubyte.gz`)));
  const labels = zlib.gunzipSync(fs.readFileSync(path.join(FASHION_MNIST, `${split}-labels-idx1-ubyte.gz`)));
  const out: Array<{ png: Buffer; label: number }> = [];
  for (let i = 0; i < count; i++) {
    const pixels = images.subarray(16 + i * 784, 16 + (i + 1) * 784);
    const png = await sharp(Buffer.from(pixels), { raw: { width: 28, height: 28, channels: 1 } })
      .png()
      .toBuffer();
    out.push({ png, label: labels[8 + i] });
  }
  return out;
}

/**
 * Grey article shapes from Fashion-MNIST's training split (never its test split, which the
 * evaluation queries): they teach the head shapes on plain black backgrounds, not only Myntra's
 * studio photos. No colour label.
 */
export async function fashionMnistTrainingSet(count: number): Promise<TrainingSet> {
  const images = await fashionMnist('train', count);
  const features = await backboneFeatures(images.map((m) => m.png));
  return {
    backbone: features.map((f) => f.backbone),
    colours: features.map((f) => f.colours),
    shapeLabel: images.map((m) => `fashion-mnist:${m.label}`),
    colourLabel: images.map(() => null),
  };
}

/** The served vectors (backbone + shipped head) of images, read back as the images table stores them. */
export async function servedVectors(
  images: Buffer[],
): Promise<{ vectors: Float32Array[]; model: string; zeroPoint: number }> {
  const embedder = await OnnxEmbedder.load(DEFAULT_MODEL_PATH, 2, DEFAULT_HEAD_PATH);
  try {
    const vectors: Float32Array[] = [];
    for (let i = 0; i < images.length; i += 32) {
      for (const result of await embedder.embed(images.slice(i, i + 32))) {
        if (result instanceof Error) throw result;
        // As stored: one byte per dimension (zero point 128 for a head's signed output), read back.
        const zeroPoint = embedder.nonNegative ? 0 : 128;
        const { codes, scale } = quantize(result, zeroPoint);
        vectors.push(Float32Array.from(codes, (c) => (c - zeroPoint) * scale));
      }
    }
    return { vectors, model: embedder.model, zeroPoint: embedder.nonNegative ? 0 : 128 };
  } finally {
    await embedder.close();
  }
}
