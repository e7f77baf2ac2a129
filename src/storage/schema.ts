import type { ColumnType, Generated } from 'kysely';

/** Table shapes as Kysely sees them. JSON columns are text on both engines; timestamps are ISO text. */
export interface WorkspacesTable {
  id: string;
  name: string;
  created_at: string;
}

export interface StoresTable {
  id: string;
  workspace_id: string;
  name: string;
  website: string | null;
  countries: string;
  channels: string;
  default_channel: string;
  taxonomy: string;
  linked_store_id: string | null;
  /** Browser origins allowed to call the API for this store (CORS), as a JSON array. */
  allowed_origins: Generated<string>;
  /** The store's mapping profile as JSON; null once an operator removed it. */
  mapping_profile: string | null;
  /** Last sequence number handed out by the store's change log (see storage/change-feed.ts). */
  change_seq: Generated<number>;
  /** The last sequence number pruned from the store's change log (0: nothing pruned). */
  change_floor: Generated<number>;
  created_at: string;
  /** Synonym groups for text search, JSON array of arrays of terms. */
  synonyms: string | null;
  /** The store's complement taxonomy as JSON; null for the shipped fashion taxonomy. */
  complements: string | null;
  /** The store's catalog vocabulary overrides as JSON (categories, departments, colours); null for none. */
  vocabulary: string | null;
  /** The store's merchandising rules for search and browse as JSON; null for none. */
  search_rules: string | null;
  /** The key shopper ids are hashed with (HMAC-SHA256), made on the store's first event. */
  shopper_key: string | null;
  /** Bumped with every change to the store's complement pins (product_pins), so processes may keep them. */
  pins_version: Generated<number>;
  /** The store's catalog language (BCP 47 primary tag, see languages/). */
  language: Generated<string>;
  /** The language the store's text index was built in (differs from `language` while it is rebuilt). */
  index_language: Generated<string>;
  /** The store's tagging settings as JSON (auto-apply thresholds per field); null: auto-apply off. */
  tagging: string | null;
}

/** A reviewed photo suggestion: per product, field and image, what was offered and decided. */
export interface TagReviewsTable {
  store_id: string;
  product_code: string;
  /** type, colour or audience */
  field: string;
  image_url: string;
  offered: string;
  confidence: number;
  /** accepted (as offered), corrected (another value written), rejected, auto (applied by the threshold) */
  decision: string;
  /** The value written (null when rejected). */
  value: string | null;
  reviewed_at: string;
}

export interface ApiTokensTable {
  id: string;
  workspace_id: string;
  token_hash: string;
  created_at: string;
  revoked_at: string | null;
  /** 'full' (a workspace token) or 'search' (a publishable key for shopper endpoints). */
  scope: Generated<string>;
  /** A publishable key's stores, as a JSON array; null for a workspace token. */
  store_ids: string | null;
}

export interface ProductsTable {
  store_id: string;
  product_code: string;
  parent_code: string | null;
  status: string;
  title: string | null;
  category: string | null;
  department: string | null;
  price: string | null;
  currency: string | null;
  /** Every canonical field of the product as given (after mapping), JSON object. */
  attributes: string;
  created_at: string;
  updated_at: string;
}

export interface ProductProblemsTable {
  store_id: string;
  product_code: string;
  reason: string;
}

export interface SkuRejectionsTable {
  id: string;
  store_id: string;
  rejected_at: string;
  count: number;
}

export interface ChangeLogTable {
  store_id: string;
  seq: number;
  entity: string;
  entity_key: string;
  op: string;
  status: string | null;
  /** The changed field names as a JSON array (null on entries written before the change feed). */
  fields: string | null;
  created_at: string;
}

export interface AssetsTable {
  store_id: string;
  asset_id: string;
  url: string;
  created_at: string;
}

export interface AssetLinksTable {
  store_id: string;
  parent_code: string;
  channel: string;
  asset_type: string;
  rank: number;
  asset_id: string;
  url: string;
  label: string;
  numbered: number;
  created_at: string;
}

export interface SearchDocsTable {
  /** SQLite only: the rowid shared with the FTS5 table. */
  id: Generated<number>;
  store_id: string;
  product_code: string;
  title: string;
  title_terms: string;
  /** The catalog vocabulary's marked concept tokens (`0women 0green`); PostgreSQL also keeps them in the tsvector (weight D). */
  concepts: Generated<string>;
}

export interface FeedCursorsTable {
  consumer: string;
  store_id: string;
  seq: number;
}
export interface SearchVocabTable {
  store_id: string;
  term: string;
  df: number;
  seq: number;
}

export interface CollectionsTable {
  store_id: string;
  id: string;
  parent_id: string | null;
  status: string;
  auto_refresh: number;
  is_static: number;
  document: string;
  created_at: string;
  updated_at: string;
}

export interface CollectionMembersTable {
  store_id: string;
  collection_id: string;
  product_code: string;
}

/** A product's sort key under one collection sort (sortSpec), shared by every collection sorted that way. */
export interface CollectionSortKeysTable {
  store_id: string;
  sort_spec: string;
  product_code: string;
  sort_key: string;
}

/** Codes of a store that are not new or active (or were deleted), kept by the collections follower. */
export interface CollectionHiddenProductsTable {
  store_id: string;
  product_code: string;
}

export interface ProductPinsTable {
  store_id: string;
  product_code: string;
  pinned: string;
}

export interface ImportsTable {
  id: string;
  store_id: string;
  status: string;
  format: string;
  source: string;
  file_path: string;
  options: string;
  progress_rows: Generated<number>;
  summary: string | null;
  error: string | null;
  created_at: string;
  started_at: string | null;
  finished_at: string | null;
  /** The lease of the process running the import (see jobs/lease-queue.ts). */
  claimed_by: Generated<string | null>;
  claimed_until: Generated<string | null>;
}

/** One distinct image URL of a store: fetch/embedding state (the job queue) and its quantized vector. */
export interface ImagesTable {
  store_id: string;
  url: string;
  /** pending (queued or waiting for a retry), indexed, failed (after the last attempt, or a permanent error) */
  state: string;
  attempts: Generated<number>;
  run_after: string;
  claimed_by: string | null;
  claimed_until: string | null;
  error: string | null;
  model: string | null;
  vector: Uint8Array | null;
  scale: number | null;
  updated_at: string;
}

/** A product's `Image URL n` (owner_kind product, slot = the field) or an image asset link (owner_kind asset, owner_key = parent_code, slot = asset_id). */
export interface ImageRefsTable {
  store_id: string;
  owner_kind: string;
  owner_key: string;
  slot: string;
  url: string;
}

/** A file uploaded to a store (POST /v1/media): the object is shared by content, the row is the store's. */
export interface MediaTable {
  store_id: string;
  sha256: string;
  /** `<sha256>.<ext>`: the object's key in the media store and the last segment of its URL. */
  media_key: string;
  content_type: string;
  media_type: string;
  bytes: number;
  file_name: string;
  created_at: string;
}

export interface WebhookSubscriptionsTable {
  id: string;
  store_id: string;
  url: string;
  /** JSON array of event types (`product.created`, …). */
  event_types: string;
  secret: string;
  /** `active` or `disabled`. */
  state: string;
  disabled_reason: string | null;
  /** The last sequence delivered (or given up on). */
  cursor_seq: number;
  /** A replay in progress: delivered up to replay_after, ends at replay_upto. */
  replay_after: number | null;
  replay_upto: number | null;
  attempts: number;
  failing_since: string | null;
  next_attempt_at: string;
  lease_owner: string | null;
  lease_until: string | null;
  last_success_at: string | null;
  last_error: string | null;
  created_at: string;
  updated_at: string;
}

export interface WebhookDeliveriesTable {
  id: string;
  subscription_id: string;
  first_seq: number;
  last_seq: number;
  events: number;
  replay: number;
  attempt: number;
  /** `delivered`, `failed` (will be retried), `rejected` (4xx: not retried), `skipped` (out of retention). */
  outcome: string;
  status_code: number | null;
  error: string | null;
  duration_ms: number;
  at: string;
}

export interface ShopperEventsTable {
  store_id: string;
  event_id: string;
  type: string;
  product_code: string | null;
  shopper_hash: string | null;
  session_id: string | null;
  query: string | null;
  hits: number | null;
  position: number | null;
  quantity: number | null;
  price: number | null;
  day: string;
  occurred_at: string;
  /** 1 when the event added to the daily counters (its actor's first of its type, product and day). */
  counted: number;
  /** The session, else the shopper: what was added to cart or bought together. */
  basket: string | null;
}

/** The actors that counted per product, day and event type (the flood cap). */
export interface EventActorDaysTable {
  store_id: string;
  actor: string;
  product_code: string;
  day: string;
  type: string;
}

export interface ProductEventDaysTable {
  store_id: string;
  product_code: string;
  day: string;
  views: number;
  clicks: number;
  carts: number;
  purchases: number;
  /** When the row was last written, as src/storage/row-stamps.ts stamps it (0: before stamps). */
  changed: ColumnType<number, number | undefined, number>;
}

/** SQLite only: the last row stamp handed out per store and stamped table (src/storage/row-stamps.ts). */
export interface RowStampsTable {
  store_id: string;
  stamped: string;
  stamp: number;
}

export interface Database {
  workspaces: WorkspacesTable;
  stores: StoresTable;
  api_tokens: ApiTokensTable;
  products: ProductsTable;
  product_problems: ProductProblemsTable;
  sku_rejections: SkuRejectionsTable;
  change_log: ChangeLogTable;
  assets: AssetsTable;
  asset_links: AssetLinksTable;
  search_docs: SearchDocsTable;
  feed_cursors: FeedCursorsTable;
  collections: CollectionsTable;
  collection_members: CollectionMembersTable;
  collection_sort_keys: CollectionSortKeysTable;
  collection_hidden_products: CollectionHiddenProductsTable;
  search_vocab: SearchVocabTable;
  product_pins: ProductPinsTable;
  imports: ImportsTable;
  images: ImagesTable;
  tag_reviews: TagReviewsTable;
  image_refs: ImageRefsTable;
  media: MediaTable;
  webhook_subscriptions: WebhookSubscriptionsTable;
  webhook_deliveries: WebhookDeliveriesTable;
  shopper_events: ShopperEventsTable;
  product_event_days: ProductEventDaysTable;
  event_actor_days: EventActorDaysTable;
  row_stamps: RowStampsTable;
}
