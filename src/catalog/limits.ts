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
