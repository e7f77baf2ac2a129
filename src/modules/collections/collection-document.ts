import { compileSort } from './collection-rules.js';
import { compileFilters, RuleError } from '../../catalog/filters.js';
import { formatLimit, MAX_COLLECTION_NAME_LENGTH, MAX_HERO_PRODUCTS } from '../../catalog/limits.js';
import { MAX_COLLECTION_TEXT_LENGTH } from '../../catalog/limits.js';

export const COLLECTION_STATUSES = ['active', 'inactive', 'hidden'] as const;
export type CollectionStatus = (typeof COLLECTION_STATUSES)[number];
const ID = /^[A-Za-z0-9._:-]{1,128}$/;

/** A collection as stored and returned: the seed's fields, plus id and parentId (CONTRACT §9). */
export interface CollectionDocument {
  id: string;
  name: string;
  description: string;
  thumbnail: string;
  status: CollectionStatus;
  url: string;
  displayPreference: string;
  autoRefresh: boolean;
  minProducts: number;
  meta: { title: string; description: string };
  sortBy: { static: Record<string, boolean>; dynamic: Array<{ field: string; order: 'asc' | 'desc' }> };
  filters: Record<string, unknown>;
  heroProducts: string[];
  groups: Array<Record<string, unknown>>;
  bannerUrl: string;
  static: string;
  parentId: string | null;
}

export function defaults(id: string): CollectionDocument {
  return {
    id,
    name: '',
    description: '',
    thumbnail: '',
    status: 'active',
    url: '',
    displayPreference: '',
    autoRefresh: true,
    minProducts: 0,
    meta: { title: '', description: '' },
    sortBy: { static: { qualityScore: false, trendScore: false, personalization: false }, dynamic: [] },
    filters: {},
    heroProducts: [],
    groups: [],
    bannerUrl: '',
    static: 'false',
    parentId: null,
  };
}

export const isStatic = (doc: CollectionDocument) => doc.static === 'true';

const fail = (reason: string, message: string): never => {
  throw new RuleError(reason, message);
};
const text = (field: string, value: unknown) => {
  if (typeof value !== 'string' || value.length > MAX_COLLECTION_TEXT_LENGTH)
    fail('invalid_field', `${field} must be a string of at most ${MAX_COLLECTION_TEXT_LENGTH} characters`);
  return value as string;
};

export function checkId(value: unknown): string {
  if (typeof value !== 'string' || !ID.test(value))
    fail('invalid_id', 'id must be 1-128 letters, digits, ".", "_", ":" or "-"');
  return value as string;
}

/** Lays `input` over `base` field by field, checking each; unknown fields and totalProducts (computed) are ignored. */
export function applyFields(base: CollectionDocument, input: Record<string, unknown>): CollectionDocument {
  const doc: CollectionDocument = structuredClone(base);
  for (const [field, value] of Object.entries(input)) {
    switch (field) {
      case 'name':
        if (typeof value !== 'string' || value.trim() === '' || value.length > MAX_COLLECTION_NAME_LENGTH)
          fail('invalid_field', `name must be a non-empty string of at most ${MAX_COLLECTION_NAME_LENGTH} characters`);
        doc.name = value as string;
        break;
      case 'description':
      case 'thumbnail':
      case 'url':
      case 'displayPreference':
      case 'bannerUrl':
        doc[field] = text(field, value);
        break;
      case 'status':
        if (!(COLLECTION_STATUSES as readonly unknown[]).includes(value))
          fail('invalid_status', `status must be one of ${COLLECTION_STATUSES.join(', ')}`);
        doc.status = value as CollectionStatus;
        break;
      case 'autoRefresh':
        if (typeof value !== 'boolean') fail('invalid_field', 'autoRefresh must be a boolean');
        doc.autoRefresh = value as boolean;
        break;
      case 'minProducts':
        if (!Number.isInteger(value) || (value as number) < 0)
          fail('invalid_field', 'minProducts must be a non-negative integer');
        doc.minProducts = value as number;
        break;
      case 'meta': {
        const meta = value as Record<string, unknown>;
        if (!meta || typeof meta !== 'object' || Array.isArray(meta))
          fail('invalid_field', 'meta must be an object {title, description}');
        doc.meta = {
          title: meta.title === undefined ? doc.meta.title : text('meta.title', meta.title),
          description:
            meta.description === undefined ? doc.meta.description : text('meta.description', meta.description),
        };
        break;
      }
      case 'sortBy': {
        const dynamic = compileSort(value);
        const flags = (value as { static?: Record<string, boolean> }).static;
        doc.sortBy = { static: { ...doc.sortBy.static, ...(flags ?? {}) }, dynamic };
        break;
      }
      case 'filters':
        compileFilters(value);
        doc.filters = (value ?? {}) as Record<string, unknown>;
        break;
      case 'heroProducts':
        if (
          !Array.isArray(value) ||
          value.length > MAX_HERO_PRODUCTS ||
          value.some((v) => typeof v !== 'string' && typeof v !== 'number')
        )
          fail(
            'invalid_field',
            `heroProducts must be an array of at most ${formatLimit(MAX_HERO_PRODUCTS)} product codes`,
          );
        doc.heroProducts = [...new Set((value as Array<string | number>).map(String))];
        break;
      case 'groups':
        if (!Array.isArray(value) || value.some((g) => !g || typeof g !== 'object' || Array.isArray(g)))
          fail('invalid_field', 'groups must be an array of objects');
        doc.groups = value as Array<Record<string, unknown>>;
        break;
      case 'static':
        if (value !== 'true' && value !== 'false' && typeof value !== 'boolean')
          fail('invalid_field', 'static must be "true" or "false"');
        doc.static = String(value);
        break;
      case 'parentId':
        doc.parentId = value === null || value === '' ? null : checkId(value);
        break;
      default:
    }
  }
  if (doc.name.trim() === '') fail('invalid_field', 'name is required');
  return doc;
}
