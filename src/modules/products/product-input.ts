import { applyMapping, type MappingProfile } from './mapping-profile.js';
import { isValidStock } from '../../catalog/variants.js';
import { MISSING_SKU } from './quality-checks.js';
import { SETTABLE_STATUSES, type ProductStatus } from '../../catalog/statuses.js';
import { isBlank, TEXT_FIELDS } from '../../catalog/product-fields.js';
import { MAX_PRODUCT_CODE_LENGTH } from '../../catalog/limits.js';

export interface ItemFailure {
  index: number;
  product_code: string;
  reason: string;
  details: string;
}

export interface ProductItem {
  index: number;
  code: string;
  /** Canonical fields to store; `null` means "remove this field" (meaningful on update). */
  fields: Record<string, unknown>;
  requestedStatus?: ProductStatus;
  /**
   * The write's precondition (`if_updated_at`): the product's `updated_at` as the client read it, or
   * null for "only if it does not exist"; absent, none. Not a catalog field: never stored.
   */
  ifUpdatedAt?: string | null;
}

/** The item field that carries a write's precondition (see ProductItem.ifUpdatedAt). */
export const PRECONDITION_FIELD = 'if_updated_at';

export type ItemOutcome = { ok: true; item: ProductItem } | { ok: false; failure: ItemFailure; missingSku: boolean };

function codeText(value: unknown): string {
  return typeof value === 'string'
    ? value
    : typeof value === 'number'
      ? String(value)
      : value === undefined || value === null
        ? ''
        : JSON.stringify(value);
}

function fail(index: number, code: unknown, reason: string, details: string, missingSku = false): ItemOutcome {
  return {
    ok: false,
    failure: { index, product_code: codeText(code).slice(0, MAX_PRODUCT_CODE_LENGTH), reason, details },
    missingSku,
  };
}

/** Maps one body item through the store's profile and checks what belongs to the item alone. */
export function normaliseItem(
  raw: Record<string, unknown>,
  index: number,
  profile: MappingProfile,
  options: { problemStatusMeansChecks?: boolean } = {},
): ItemOutcome {
  const { [PRECONDITION_FIELD]: precondition, ...catalogFields } = raw;
  const mapped = applyMapping(profile, catalogFields);
  const { product_code: rawCode, Status: rawStatus, ...rest } = mapped;

  let code: string;
  if (isBlank(rawCode)) {
    return fail(index, rawCode, MISSING_SKU, 'product_code is missing or empty', true);
  } else if (typeof rawCode === 'number' && Number.isFinite(rawCode)) {
    code = String(rawCode);
  } else if (typeof rawCode === 'string') {
    if (rawCode.length > MAX_PRODUCT_CODE_LENGTH) {
      return fail(
        index,
        rawCode,
        'invalid_product_code',
        `product_code must be at most ${MAX_PRODUCT_CODE_LENGTH} characters (got ${rawCode.length})`,
      );
    }
    code = rawCode;
  } else {
    return fail(
      index,
      rawCode,
      'invalid_product_code',
      `product_code must be a string or a number, got ${Array.isArray(rawCode) ? 'array' : typeof rawCode}`,
    );
  }

  if (precondition !== undefined && precondition !== null && typeof precondition !== 'string')
    return fail(
      index,
      code,
      'invalid_field',
      `${PRECONDITION_FIELD} must be the product's updated_at as read (a string), or null for "only if it does not exist"; got ${JSON.stringify(precondition)}`,
    );

  let requestedStatus: ProductStatus | undefined;
  const wanted = typeof rawStatus === 'string' ? rawStatus.trim().toLowerCase() : undefined;
  const checksDecide = options.problemStatusMeansChecks === true && wanted === 'problem';
  if (rawStatus !== undefined && rawStatus !== null && !checksDecide) {
    if (wanted === undefined || !(SETTABLE_STATUSES as readonly string[]).includes(wanted)) {
      return fail(
        index,
        code,
        'invalid_status',
        `Status must be one of ${SETTABLE_STATUSES.join(', ')} ("problem" is set only by the quality checks); got ${JSON.stringify(rawStatus)}`,
      );
    }
    requestedStatus = wanted as ProductStatus;
  }

  const fields: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(rest)) {
    if (TEXT_FIELDS.has(name) && value !== null) {
      if (typeof value === 'number' && Number.isFinite(value)) {
        fields[name] = String(value);
        continue;
      }
      if (typeof value !== 'string')
        return fail(
          index,
          code,
          'invalid_field',
          `${name} must be a string, got ${Array.isArray(value) ? 'array' : typeof value}`,
        );
    }
    // Stock drives what a listing offers (a Size filter, a card's sizes): it must read as a count.
    if (name === 'Stock' && !isValidStock(value))
      return fail(
        index,
        code,
        'invalid_field',
        `Stock must be an integer (absent means in stock), got ${JSON.stringify(value)}`,
      );
    fields[name] = value;
  }
  return {
    ok: true,
    item: {
      index,
      code,
      fields,
      ...(requestedStatus ? { requestedStatus } : {}),
      ...(precondition !== undefined ? { ifUpdatedAt: precondition } : {}),
    },
  };
}

/** Fields stored for a product: the given ones, or the existing ones with the given ones laid over (update). Null removes a field. */
export function mergeFields(
  existing: Record<string, unknown> | undefined,
  given: Record<string, unknown>,
): Record<string, unknown> {
  const merged: Record<string, unknown> = { ...(existing ?? {}) };
  for (const [name, value] of Object.entries(given)) {
    if (value === null) delete merged[name];
    else merged[name] = value;
  }
  return merged;
}

/** The profile's `required` fields missing from a product, if any. */
export function missingRequiredFields(profile: MappingProfile, fields: Record<string, unknown>): string[] {
  return profile.required.filter((name) => {
    if (name === 'product_code') return false;
    return isBlank(fields[name]);
  });
}
