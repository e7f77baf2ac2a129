import fs from 'node:fs';
import path from 'node:path';
import { resolveCategoryLabel } from '../src/catalog/vocabulary/categories.js';
import { resolveColour } from '../src/catalog/vocabulary/colours.js';
import { resolveAudience } from '../src/catalog/vocabulary/audiences.js';
import { FASHION_IMAGES } from './datasets.js';

/** A labelled photo with what the tagger learns: its labels read through the catalog vocabulary. */
export interface TagTarget {
  id: string;
  file: string;
  articleType: string;
  baseColour: string;
  gender: string;
  /** The garment concept ("t-shirt"), undefined when the vocabulary cannot place the article type. */
  type?: string;
  /** The colour family ("blue"); multi-coloured and clear photos teach no colour. */
  colour?: string;
  audience?: string;
}

/** The 3,988 labelled photos (labels.csv: id,filename,articleType,baseColour,gender,…; no field is quoted). */
export function tagTargets(): TagTarget[] {
  const lines = fs.readFileSync(path.join(FASHION_IMAGES, 'labels.csv'), 'utf8').trim().split('\n').slice(1);
  return lines.map((line) => {
    const [id, filename, articleType, baseColour, gender] = line.split(',');
    const family = resolveColour(baseColour, ['en']).family;
    const audience = resolveAudience(gender, ['en']).audience;
    return {
      id,
      file: path.join(FASHION_IMAGES, filename),
      articleType,
      baseColour,
      gender,
      type: resolveCategoryLabel(articleType, ['en'])?.concept,
      colour: family && family !== 'multi' && family !== 'clear' ? family : undefined,
      audience: audience && !audience.startsWith('label:') ? audience : undefined,
    };
  });
}
