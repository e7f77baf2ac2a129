/** The size limits of the interface (CONTRACT §4, §6, §8), in one place. */

/** Product create/update take 1..100 items (413 above). */
export const MAX_BATCH_ITEMS = 100;
/** Codes one product delete names. */
export const MAX_DELETE_CODES = 1000;
/** Suggestions accepted or rejected per request (POST /v1/products/suggestions/accept|reject). */
export const MAX_REVIEW_ITEMS = 1000;
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

/** Change feed entries one page returns. */
export const MAX_CHANGES_PAGE = 1000;
/** Complete the look: categories one answer holds. */
export const MAX_CATEGORIES = 8;
/** Files one media upload request may carry. */
export const MAX_UPLOAD_FILES = 100;
/** A mapping profile's field names. */
export const MAX_FIELD_NAME_LENGTH = 128;
/** Webhook subscriptions of one store. */
export const MAX_SUBSCRIPTIONS_PER_STORE = 20;
/** Collections one create or update request holds. */
export const MAX_COLLECTION_ITEMS = 100;
/** A collection's text fields (description, url, …). */
export const MAX_COLLECTION_TEXT_LENGTH = 2048;
/** Vocabulary overrides per section, and one label's length. */
export const MAX_OVERRIDES = 2000;
export const MAX_OVERRIDE_LABEL = 500;
/** JSON bodies nested deeper than this are refused before they are parsed (400). */
export const MAX_JSON_DEPTH = 64;
/** Longest path parameter (a product code, a collection id); longer: 414. */
export const MAX_PARAM_LENGTH = 200;

/** Discovery (POST /v1/search/query): facets one request asks for, values per facet, suggestion prefix. */
export const MAX_FACETS = 20;
export const DEFAULT_FACET_LIMIT = 50;
export const MAX_FACET_LIMIT = 500;
export const MAX_SUGGEST_PREFIX = 100;
/** Suggestions of each kind one answer holds, and by default. */
export const MAX_SUGGESTIONS = 20;
export const DEFAULT_SUGGESTIONS = 5;
/** A merchandising rule's id. */
export const MAX_RULE_ID_LENGTH = 100;
/** Shopper events: one request's batch; how old or how far ahead an event's time may be. */
export const MAX_EVENTS_BATCH = 500;
export const MAX_EVENT_AGE_DAYS = 7;
export const MAX_EVENT_LEAD_MINUTES = 5;
/** A client's event_id, shopper_id or session_id. */
export const MAX_EVENT_ID_LENGTH = 200;
/** Merchandising rules of one store, and pins / hides / boosts one rule holds. */
export const MAX_SEARCH_RULES = 500;
export const MAX_RULE_ITEMS = 100;
