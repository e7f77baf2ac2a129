import { MAX_IMAGE_BYTES } from '../../catalog/limits.js';

/**
 * What `POST /v1/media` accepts, told from the file's first bytes (never its name), with a size
 * limit per kind. The `kind` is the asset_type an uploaded file is linked as.
 */
export interface MediaType {
  kind: 'image' | 'video' | 'pdf' | '3D';
  mime: string;
  /** The extension of the served URL: `/media/<sha256>.<ext>`. */
  ext: string;
  maxBytes: number;
}

const MB = 1024 * 1024;

/** CONTRACT §4: 10 MB per image; the other kinds' limits are ours (README › Media). */
export const MEDIA_LIMITS = { image: MAX_IMAGE_BYTES, video: 200 * MB, pdf: 50 * MB, '3D': 100 * MB } as const;

export const MEDIA_TYPES: readonly MediaType[] = [
  { kind: 'image', mime: 'image/jpeg', ext: 'jpg', maxBytes: MEDIA_LIMITS.image },
  { kind: 'image', mime: 'image/png', ext: 'png', maxBytes: MEDIA_LIMITS.image },
  { kind: 'image', mime: 'image/webp', ext: 'webp', maxBytes: MEDIA_LIMITS.image },
  { kind: 'image', mime: 'image/gif', ext: 'gif', maxBytes: MEDIA_LIMITS.image },
  { kind: 'image', mime: 'image/avif', ext: 'avif', maxBytes: MEDIA_LIMITS.image },
  { kind: 'video', mime: 'video/mp4', ext: 'mp4', maxBytes: MEDIA_LIMITS.video },
  { kind: 'pdf', mime: 'application/pdf', ext: 'pdf', maxBytes: MEDIA_LIMITS.pdf },
  { kind: '3D', mime: 'model/gltf-binary', ext: 'glb', maxBytes: MEDIA_LIMITS['3D'] },
];

/** The largest file any kind accepts: what an upload may stream before it is cut off. */
export const MAX_MEDIA_BYTES = Math.max(...Object.values(MEDIA_LIMITS));

const BY_MIME = new Map(MEDIA_TYPES.map((type) => [type.mime, type]));
const BY_EXT = new Map(MEDIA_TYPES.map((type) => [type.ext, type]));

export function mediaTypeOfMime(mime: string | undefined): MediaType | undefined {
  return mime ? BY_MIME.get(mime) : undefined;
}

export function mediaTypeOfExt(ext: string): MediaType | undefined {
  return BY_EXT.get(ext);
}

/** The accepted types as an operator reads them. */
export const ACCEPTED_MEDIA = 'JPEG, PNG, WebP, GIF, AVIF, MP4, PDF, GLB';

/** A stored object's key: its SHA-256 and the extension of its type. */
export const MEDIA_KEY = /^([0-9a-f]{64})\.([a-z0-9]{2,5})$/;

/** The key a media URL names (`…/media/<sha256>.<ext>`, whatever host serves it), if any. */
export function mediaKeyOfUrl(url: string): string | undefined {
  let pathname: string;
  try {
    pathname = new URL(url).pathname;
  } catch {
    return undefined;
  }
  const match = /\/media\/([0-9a-f]{64}\.[a-z0-9]{2,5})$/.exec(pathname);
  return match && mediaTypeOfExt(match[1].split('.')[1]) ? match[1] : undefined;
}

/**
 * A client's file name as metadata: the last path segment (a name never becomes a path: objects
 * are stored by content hash), or undefined when it holds control characters (NUL included).
 */
export function cleanFileName(name: string | undefined): string | undefined {
  if (name === undefined) return '';
  // eslint-disable-next-line no-control-regex
  if (/[\u0000-\u001f\u007f]/.test(name)) return undefined;
  const base = name.split(/[/\\]/).pop() ?? '';
  return base === '.' || base === '..' ? '' : base.slice(0, 255);
}
