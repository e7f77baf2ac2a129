import { InvalidInputError, InvalidRequestError } from '../errors.js';

/** Catalog file formats (CONTRACT §2). */
export type ImportFormat = 'csv' | 'json' | 'ndjson';
export const IMPORT_FORMATS: readonly ImportFormat[] = ['csv', 'json', 'ndjson'];

/** Text encodings a catalog file may use, by the names operators write. */
const ENCODINGS: Record<string, BufferEncoding> = {
  'utf-8': 'utf8',
  utf8: 'utf8',
  latin1: 'latin1',
  'iso-8859-1': 'latin1',
  'utf-16le': 'utf16le',
  utf16le: 'utf16le',
};
export const ENCODING_NAMES = 'utf-8, latin1, utf-16le';

/** The encoding an operator named (undefined: the default, UTF-8), or a 400 naming `field`. */
export function parseEncoding(value: unknown, field = 'encoding'): BufferEncoding | undefined {
  if (value === undefined || value === null || value === '') return undefined;
  const encoding = typeof value === 'string' ? ENCODINGS[value.toLowerCase()] : undefined;
  if (!encoding)
    throw new InvalidRequestError(`${field} must be one of ${ENCODING_NAMES}, got ${JSON.stringify(value)}`, field);
  return encoding;
}

/** The format a file name says (.csv, .json, .ndjson or .jsonl). */
export function formatOf(fileName: string): ImportFormat {
  const extension = fileName.toLowerCase().split('.').pop();
  if (extension === 'csv' || extension === 'json' || extension === 'ndjson') return extension;
  if (extension === 'jsonl') return 'ndjson';
  throw new InvalidInputError(`cannot tell the format of "${fileName}": use .csv, .json or .ndjson`, 'file');
}

/** A requested format, or the one the file name says. */
export function parseFormat(requested: string | undefined, fileName: string): ImportFormat {
  if (requested === undefined || requested === '') return formatOf(fileName);
  if (!(IMPORT_FORMATS as readonly string[]).includes(requested)) {
    throw new InvalidInputError(`format must be one of ${IMPORT_FORMATS.join(', ')}`, 'format');
  }
  return requested as ImportFormat;
}
