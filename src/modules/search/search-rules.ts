import { InvalidInputError } from '../../errors.js';
import { compileFilters, RuleError, type CompiledFilters, type AudienceResolver } from '../../catalog/filters.js';
import {
  formatLimit,
  MAX_RULE_ID_LENGTH,
  MAX_RULE_ITEMS,
  MAX_SEARCH_RULES,
  MAX_PRODUCT_CODE_LENGTH,
} from '../../catalog/limits.js';
import { RANKED_PAGING } from '../../catalog/paging.js';
import { rawTokens } from '../../search/analyzer.js';

/**
 * A store's merchandising rules (issue 40): when a query (exact or contained), a collection page or
 * every listing is shown, pin products to positions of page 1, hide products, boost or bury the
 * products that satisfy a filter, optionally within a time window.
 */
export interface SearchRule {
  id: string;
  when: { query: string; match: 'exact' | 'contains' } | { collection_id: string } | { always: true };
  pin: Array<{ product_code: string; position: number }>;
  hide: string[];
  boost: Array<{ filters: Record<string, unknown>; weight: number }>;
  bury: Array<{ filters: Record<string, unknown> }>;
  active_from?: string;
  active_until?: string;
}

/** A boost's multiplier of relevance is 1 + weight. */
export const MAX_BOOST_WEIGHT = 100;

const fail = (path: string, message: string): never => {
  throw new InvalidInputError(`${path}: ${message}`, path);
};

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

function listOf(rule: Record<string, unknown>, key: string, path: string): unknown[] {
  const value = rule[key];
  if (value === undefined) return [];
  if (!Array.isArray(value)) return fail(`${path}.${key}`, 'must be an array');
  if (value.length > MAX_RULE_ITEMS) fail(`${path}.${key}`, `holds at most ${formatLimit(MAX_RULE_ITEMS)} items`);
  return value;
}

function productCode(value: unknown, path: string): string {
  if (typeof value !== 'string' || value.trim() === '' || value.length > MAX_PRODUCT_CODE_LENGTH)
    return fail(path, `must be a product code (1 to ${formatLimit(MAX_PRODUCT_CODE_LENGTH)} characters)`);
  return value.trim();
}

function instant(value: unknown, path: string): string | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'string' || Number.isNaN(Date.parse(value)))
    return fail(path, 'must be a date-time (ISO 8601, e.g. 2026-12-01T00:00:00Z)');
  return new Date(value).toISOString();
}

/**
 * Checks a filter of a boost or bury in the catalog's one language and against the store's
 * attributes: a malformed filter or an attribute the catalog does not know is refused (422 naming
 * the rule's path), so a typo in a rule cannot silently boost nothing.
 */
function ruleFilters(value: unknown, path: string, knows: (attribute: string) => boolean): Record<string, unknown> {
  if (!isObject(value) || Object.keys(value).length === 0)
    return fail(path, 'must be an object of attribute -> value, values or range');
  try {
    for (const { field } of compileFilters(value))
      if (!knows(field)) fail(`${path}.${field}`, 'no product of the store has this attribute');
  } catch (error) {
    if (error instanceof RuleError) fail(path, error.message);
    throw error;
  }
  return value;
}

function parseWhen(value: unknown, path: string): SearchRule['when'] {
  if (!isObject(value)) return fail(path, 'must be {query, match}, {collection_id} or {always: true}');
  if (value.always === true && Object.keys(value).length === 1) return { always: true };
  if (typeof value.collection_id === 'string' && Object.keys(value).length === 1)
    return { collection_id: value.collection_id };
  if (typeof value.query === 'string') {
    if (rawTokens(value.query).length === 0) fail(`${path}.query`, 'must hold at least one word');
    const match = value.match ?? 'exact';
    if (match !== 'exact' && match !== 'contains') fail(`${path}.match`, 'must be exact or contains');
    const extra = Object.keys(value).filter((k) => k !== 'query' && k !== 'match');
    if (extra.length > 0) fail(`${path}.${extra[0]}`, 'is not a condition of a rule');
    return { query: value.query, match: match as 'exact' | 'contains' };
  }
  return fail(path, 'must be {query, match}, {collection_id} or {always: true}');
}

const RULE_KEYS = new Set(['id', 'when', 'pin', 'hide', 'boost', 'bury', 'active_from', 'active_until']);

/** A store's rules as an operator gives them (`{"rules": [...]}`), checked: 422 naming the path of the first fault. */
export function parseSearchRules(input: unknown, knows: (attribute: string) => boolean): SearchRule[] {
  const rules = isObject(input) ? input.rules : undefined;
  if (!Array.isArray(rules)) return fail('rules', 'must be an array of rules');
  if (rules.length > MAX_SEARCH_RULES) fail('rules', `holds at most ${formatLimit(MAX_SEARCH_RULES)} rules`);
  const ids = new Set<string>();
  return rules.map((raw, i) => {
    const path = `rules[${i}]`;
    if (!isObject(raw)) return fail(path, 'must be an object');
    const unknown = Object.keys(raw).find((key) => !RULE_KEYS.has(key));
    if (unknown) fail(`${path}.${unknown}`, 'is not a field of a rule');
    if (typeof raw.id !== 'string' || raw.id.trim() === '' || raw.id.length > MAX_RULE_ID_LENGTH)
      fail(`${path}.id`, `must be a non-empty string of 1 to ${formatLimit(MAX_RULE_ID_LENGTH)} characters`);
    const id = (raw.id as string).trim();
    if (ids.has(id)) fail(`${path}.id`, `"${id}" is used by another rule`);
    ids.add(id);
    const pin = listOf(raw, 'pin', path).map((item, j) => {
      const at = `${path}.pin[${j}]`;
      if (!isObject(item)) return fail(at, 'must be {product_code, position}');
      const position = item.position;
      if (
        typeof position !== 'number' ||
        !Number.isInteger(position) ||
        position < 1 ||
        position > RANKED_PAGING.maxLimit
      )
        fail(`${at}.position`, `must be an integer from 1 to ${RANKED_PAGING.maxLimit}`);
      return { product_code: productCode(item.product_code, `${at}.product_code`), position: position as number };
    });
    const boost = listOf(raw, 'boost', path).map((item, j) => {
      const at = `${path}.boost[${j}]`;
      if (!isObject(item)) return fail(at, 'must be {filters, weight}');
      const weight = item.weight ?? 1;
      if (typeof weight !== 'number' || !(weight > 0) || weight > MAX_BOOST_WEIGHT)
        fail(`${at}.weight`, `must be a number above 0, at most ${MAX_BOOST_WEIGHT}`);
      return { filters: ruleFilters(item.filters, `${at}.filters`, knows), weight: weight as number };
    });
    const bury = listOf(raw, 'bury', path).map((item, j) => {
      const at = `${path}.bury[${j}]`;
      if (!isObject(item)) return fail(at, 'must be {filters}');
      return { filters: ruleFilters(item.filters, `${at}.filters`, knows) };
    });
    const rule: SearchRule = {
      id,
      when: parseWhen(raw.when, `${path}.when`),
      pin,
      hide: listOf(raw, 'hide', path).map((code, j) => productCode(code, `${path}.hide[${j}]`)),
      boost,
      bury,
    };
    const from = instant(raw.active_from, `${path}.active_from`);
    const until = instant(raw.active_until, `${path}.active_until`);
    if (from && until && from >= until) fail(`${path}.active_until`, 'must be after active_from');
    if (from) rule.active_from = from;
    if (until) rule.active_until = until;
    return rule;
  });
}

/** What the rules that apply to one listing ask for, their filters compiled. */
export interface ActiveRules {
  pins: Array<{ code: string; position: number; rule: string }>;
  hide: Map<string, string>;
  boost: Array<{ filters: CompiledFilters; weight: number; rule: string }>;
  bury: Array<{ filters: CompiledFilters; rule: string }>;
}

export const NO_RULES: ActiveRules = { pins: [], hide: new Map(), boost: [], bury: [] };

/** Whether a rule's condition holds for a listing: its query (words folded), its collection, or always. */
function applies(rule: SearchRule, listing: { query: string[]; collectionId?: string }): boolean {
  const when = rule.when;
  if ('always' in when) return true;
  if ('collection_id' in when) return listing.collectionId === when.collection_id;
  const words = rawTokens(when.query);
  if (listing.query.length === 0) return false;
  if (when.match === 'exact') return words.join(' ') === listing.query.join(' ');
  for (let i = 0; i + words.length <= listing.query.length; i++)
    if (words.every((word, j) => listing.query[i + j] === word)) return true;
  return false;
}

/**
 * The rules that apply to a listing at `now` (time windows: from inclusive, until exclusive). A
 * position or a product pinned by an earlier rule keeps it.
 */
export function activeRules(
  rules: readonly SearchRule[],
  listing: { query: string; collectionId?: string; now: Date },
  resolver: AudienceResolver,
): ActiveRules {
  const now = listing.now.toISOString();
  const context = { query: rawTokens(listing.query), collectionId: listing.collectionId };
  const active: ActiveRules = { pins: [], hide: new Map(), boost: [], bury: [] };
  const pinnedCodes = new Set<string>();
  const pinnedPositions = new Set<number>();
  for (const rule of rules) {
    if ((rule.active_from && now < rule.active_from) || (rule.active_until && now >= rule.active_until)) continue;
    if (!applies(rule, context)) continue;
    for (const pin of rule.pin) {
      if (pinnedCodes.has(pin.product_code) || pinnedPositions.has(pin.position)) continue;
      pinnedCodes.add(pin.product_code);
      pinnedPositions.add(pin.position);
      active.pins.push({ code: pin.product_code, position: pin.position, rule: rule.id });
    }
    for (const code of rule.hide) if (!active.hide.has(code)) active.hide.set(code, rule.id);
    for (const boost of rule.boost)
      active.boost.push({ filters: compileFilters(boost.filters, resolver), weight: boost.weight, rule: rule.id });
    for (const bury of rule.bury) active.bury.push({ filters: compileFilters(bury.filters, resolver), rule: rule.id });
  }
  active.pins.sort((a, b) => a.position - b.position);
  return active;
}
