/** The size limits of the interface (CONTRACT §4, §6, §8), in one place. */

/** Product create/update take 1..100 items (413 above). */
export const MAX_BATCH_ITEMS = 100;
/** Codes one product delete names. */
export const MAX_DELETE_CODES = 1000;
/** File imports write in larger transactions than the API's batches. */
export const MAX_IMPORT_BATCH = 5000;
/** A catalog file, uploaded or fetched. */
export const MAX_IMPORT_BYTES = 2 * 1024 ** 3;
/** A JSON body. */
export const MAX_JSON_BODY_BYTES = 10 * 1024 * 1024;
/** An uploaded or fetched image. */
export const MAX_IMAGE_BYTES = 10 * 1024 * 1024;
export const MAX_PRODUCT_CODE_LENGTH = 128;
export const MAX_URL_LENGTH = 2048;
/** An asset link's name ("Image URL 3", "front"). */
export const MAX_ASSET_NAME_LENGTH = 128;
/** A workspace or store name. */
export const MAX_NAME_LENGTH = 200;
/** Synonym groups of one store, the terms of a group, and one term. */
export const MAX_SYNONYM_GROUPS = 10_000;
export const MIN_SYNONYM_TERMS = 2;
export const MAX_SYNONYM_TERM_LENGTH = 100;
/** A text search query. */
export const MAX_QUERY_LENGTH = 1000;
/** The JSON-encoded `filters` of search by photo. */
export const MAX_FILTERS_LENGTH = 10_000;
/** A collection's name and its hero products. */
export const MAX_COLLECTION_NAME_LENGTH = 200;
export const MAX_HERO_PRODUCTS = 1000;
/** An uploaded image's pixel count (decompression bombs stop here). */
export const MAX_IMAGE_PIXELS = 40_000_000;

/** A count as messages write it: 10,000. */
export const formatLimit = (value: number) => value.toLocaleString('en-US');

/** A byte limit as messages write it: 10 MB. */
export const formatMegabytes = (bytes: number) => `${bytes / 1024 ** 2} MB`;
/** A pixel limit as messages write it: 40 megapixels. */
export const formatMegapixels = (pixels: number) => `${pixels / 1e6} megapixels`;
