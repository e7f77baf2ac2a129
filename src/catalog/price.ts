/**
 * The price rule (CONTRACT §6: `49`, `49.90`): a non-negative decimal with '.' as separator and at
 * most 4 decimals. Quality checks, collections (filters, sort, listings) and complete the look all
 * read prices through here, so a price the checks call invalid is never used as a price anywhere.
 */
const VALID_PRICE = /^\d+(\.\d{1,4})?$/;

export function isValidPrice(value: string): boolean {
  return VALID_PRICE.test(value.trim());
}

/** The price as a number, or null when missing or not a valid price. */
export function priceOf(value: unknown): number | null {
  if (typeof value === 'number')
    return Number.isFinite(value) && value >= 0 && isValidPrice(String(value)) ? value : null;
  return typeof value === 'string' && isValidPrice(value) ? Number(value) : null;
}
