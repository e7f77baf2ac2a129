import fs from 'node:fs';
import { createHash } from 'node:crypto';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { EmbeddingHead } from './embedding-head.js';

// Kept apart from the embedder: naming the model or reading its identity must not load the ONNX runtime
// (its native library and arenas) into a process that embeds nothing.

/** The model Vitrine ships (models/, see its README). */
export const DEFAULT_MODEL_PATH = fileURLToPath(
  new URL('../../../models/mobilenetv2-12-int8/mobilenetv2-12-int8-embed.onnx', import.meta.url),
);

/**
 * The identity of a model as embeddings record it (`<file name>@<sha256, 12 hex>[+<head identity>]`),
 * from its files alone: a process learns which model it would embed with without loading it.
 */
export function modelIdentity(modelPath: string, headPath: string | undefined): string {
  return modelIdentityOf(
    modelPath,
    fs.readFileSync(modelPath),
    headPath ? EmbeddingHead.identityOf(headPath) : undefined,
  );
}

export function modelIdentityOf(modelPath: string, bytes: Buffer, headIdentity: string | undefined): string {
  const digest = createHash('sha256').update(bytes).digest('hex').slice(0, 12);
  return `${path.basename(modelPath, '.onnx')}@${digest}${headIdentity ? `+${headIdentity}` : ''}`;
}
