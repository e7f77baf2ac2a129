/**
 * A collection's status as shoppers and listings see it (catalog-api.md, `minProducts`): an active
 * collection with fewer members than its minProducts is `hidden` while that lasts; any other stored
 * status is shown as stored. Saved collections, their listings and the preview all read it here.
 */
export function effectiveCollectionStatus<S extends string>(
  stored: S,
  totalProducts: number,
  minProducts: number,
): S | 'hidden' {
  return stored === 'active' && totalProducts < minProducts ? 'hidden' : stored;
}
