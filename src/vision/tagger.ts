import fs from 'node:fs';
import path from 'node:path';
import { createHash } from 'node:crypto';
import { fileURLToPath } from 'node:url';

/** What the tagger predicts from a product's photo: its garment concept, colour family and audience. */
export const TAGGER_FIELDS = ['type', 'colour', 'audience'] as const;
export type TaggerField = (typeof TAGGER_FIELDS)[number];

/** The tagger shipped with Vitrine (training/train-tagger.ts writes it). */
export const DEFAULT_TAGGER_PATH = fileURLToPath(new URL('../../../models/tagger/tagger.json', import.meta.url));

/** tagger.json: per field its classes, temperature and weights (little-endian float32, classes × (dims + 1)). */
export interface TaggerManifest {
  format: 'vitrine-tagger/1';
  /** The served model (backbone + head) whose stored vectors it reads; another model: no predictions. */
  model: string;
  /** How the stored bytes read back: value = (byte − zero_point) × scale. */
  zero_point: number;
  dimensions: number;
  weights_file: string;
  fields: Record<
    TaggerField,
    {
      classes: string[];
      temperature: number;
      /** Where the field's weights start in the weights file, in floats. */
      offset: number;
      /** The confidence at which cross-validated precision reaches the field's target. */
      default_threshold: number;
      cross_validation: Record<string, unknown>;
    }
  >;
  training: Record<string, unknown>;
}

export interface TagPrediction {
  /** The class: a garment concept ("t-shirt"), a colour family ("blue") or an audience ("women"). */
  value: string;
  /** Calibrated probability that the value is right. */
  confidence: number;
}

/**
 * The photo tagger: a calibrated softmax per field over a product's stored image vector (no second
 * pass over the image). Its identity (`tagger@<sha256 of manifest and weights, 12 hex>`) is reported
 * with the vision model's; it reads only vectors of the model it was trained on.
 */
export class Tagger {
  private constructor(
    readonly manifest: TaggerManifest,
    private readonly weights: Float32Array,
    readonly identity: string,
  ) {}

  static load(manifestPath = DEFAULT_TAGGER_PATH): Tagger {
    const manifestBytes = fs.readFileSync(manifestPath);
    const manifest = JSON.parse(manifestBytes.toString('utf8')) as TaggerManifest;
    if (manifest.format !== 'vitrine-tagger/1') throw new Error(`${manifestPath}: not a vitrine-tagger/1 manifest`);
    const weightsBytes = fs.readFileSync(path.join(path.dirname(manifestPath), manifest.weights_file));
    const weights = new Float32Array(weightsBytes.byteLength / 4);
    for (let i = 0; i < weights.length; i++) weights[i] = weightsBytes.readFloatLE(i * 4);
    const digest = createHash('sha256').update(manifestBytes).update(weightsBytes).digest('hex').slice(0, 12);
    return new Tagger(manifest, weights, `${path.basename(path.dirname(manifestPath))}@${digest}`);
  }

  /** Whether vectors of this served model can be read. */
  reads(model: string): boolean {
    return model === this.manifest.model;
  }

  /** The best class of each field for one vector (dimensions long), with its calibrated confidence. */
  predict(vector: Float32Array): Record<TaggerField, TagPrediction> {
    const out = {} as Record<TaggerField, TagPrediction>;
    const d = this.manifest.dimensions;
    for (const field of TAGGER_FIELDS) {
      const { classes, temperature, offset } = this.manifest.fields[field];
      let best = 0;
      let max = -Infinity;
      const logits = new Float64Array(classes.length);
      for (let k = 0; k < classes.length; k++) {
        const base = offset + k * (d + 1);
        let sum = this.weights[base + d];
        for (let j = 0; j < d; j++) sum += this.weights[base + j] * vector[j];
        logits[k] = sum / temperature;
        if (logits[k] > max) {
          max = logits[k];
          best = k;
        }
      }
      let total = 0;
      for (const logit of logits) total += Math.exp(logit - max);
      out[field] = { value: classes[best], confidence: 1 / total };
    }
    return out;
  }

  defaultThreshold(field: TaggerField): number {
    return this.manifest.fields[field].default_threshold;
  }
}
