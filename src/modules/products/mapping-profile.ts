import { InvalidInputError } from '../../errors.js';
import { CANONICAL_FIELDS } from '../../catalog/product-fields.js';
import { MAX_FIELD_NAME_LENGTH } from '../../catalog/limits.js';

/**
 * A store's mapping profile (CONTRACT §2): `fields` renames incoming field names to canonical ones,
 * `required` adds checks. Fields not named in `fields` are kept as they are.
 */
export interface MappingProfile {
  fields: Record<string, string>;
  required: string[];
}

/** Identity on the seed fields and the well-known attributes; given to every store at registration. */
export function defaultMappingProfile(): MappingProfile {
  const fields: Record<string, string> = {};
  for (const name of CANONICAL_FIELDS) fields[name] = name;
  return { fields, required: [] };
}

/** Checks an operator-supplied profile (file or admin body) and returns it normalised. */
export function parseMappingProfile(input: unknown): MappingProfile {
  if (typeof input !== 'object' || input === null || Array.isArray(input)) {
    throw new InvalidInputError('mapping profile must be a JSON object with "fields" and "required"', 'mapping');
  }
  const { fields = {}, required = [], ...rest } = input as Record<string, unknown>;
  const unknownKeys = Object.keys(rest);
  if (unknownKeys.length > 0)
    throw new InvalidInputError(`mapping profile has unknown key "${unknownKeys[0]}"`, unknownKeys[0]);
  if (typeof fields !== 'object' || fields === null || Array.isArray(fields)) {
    throw new InvalidInputError('mapping "fields" must be an object of incoming name -> canonical name', 'fields');
  }
  const renamed: Record<string, string> = {};
  for (const [incoming, canonical] of Object.entries(fields)) {
    if (typeof canonical !== 'string' || canonical.trim() === '' || canonical.length > MAX_FIELD_NAME_LENGTH) {
      throw new InvalidInputError(
        `mapping "fields.${incoming}" must be a non-empty canonical field name`,
        `fields.${incoming}`,
      );
    }
    renamed[incoming] = canonical;
  }
  if (!Array.isArray(required) || required.some((name) => typeof name !== 'string' || name.trim() === '')) {
    throw new InvalidInputError('mapping "required" must be an array of canonical field names', 'required');
  }
  return { fields: renamed, required: [...new Set(required as string[])] };
}

/** Renames one incoming item's fields to canonical names. When two incoming names map to one field, the later wins. */
export function applyMapping(profile: MappingProfile, item: Record<string, unknown>): Record<string, unknown> {
  const mapped: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(item)) mapped[canonicalName(profile, name)] = value;
  return mapped;
}

/** The canonical name an incoming field name is renamed to (itself when the profile does not name it). */
function canonicalName(profile: MappingProfile, name: string): string {
  return Object.hasOwn(profile.fields, name) ? profile.fields[name] : name;
}

/** The value an item gives the canonical field `canonical` after renaming (as applyMapping: the later name wins). */
export function mappedValue(profile: MappingProfile, item: Record<string, unknown>, canonical: string): unknown {
  let value: unknown;
  for (const name in item) if (canonicalName(profile, name) === canonical) value = item[name];
  return value;
}
