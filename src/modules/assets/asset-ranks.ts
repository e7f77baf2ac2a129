/**
 * Rank rules of CONTRACT §7, as pure functions over one group of links (one parent_code, channel
 * and asset_type): numbered names address ranks, unnumbered names follow in the given order, ranks
 * stay contiguous 1..n.
 */
export interface GroupLink {
  assetId: string;
  url: string;
  label: string;
  numbered: boolean;
}

export interface AssetName {
  label: string;
  number?: number;
}

/** "Image URL 3" -> {label: "Image URL", number: 3}; "front" -> {label: "front"}. */
export function parseAssetName(name: string): AssetName {
  const match = /^(.*?)\s*(\d+)$/.exec(name.trim());
  if (match && match[1] !== '' && Number(match[2]) >= 1 && Number(match[2]) <= 1_000_000)
    return { label: match[1], number: Number(match[2]) };
  return { label: name.trim() };
}

/** The name a link is listed under: numbered names follow their rank. */
export function listedName(link: { label: string; numbered: boolean }, rank: number): string {
  return link.numbered ? `${link.label} ${rank}` : link.label;
}

export interface Placement {
  name: AssetName;
  assetId: string;
  url: string;
}

/**
 * Applies placements to a group in order (numbered ones first by number, then unnumbered in the
 * given order) and says, per placement, whether it created a link or updated one.
 */
export function placeLinks(
  current: GroupLink[],
  placements: Placement[],
): { links: GroupLink[]; outcomes: Array<'created' | 'updated'> } {
  const links = [...current];
  const outcomes: Array<'created' | 'updated'> = new Array(placements.length);
  const order = placements
    .map((placement, index) => ({ placement, index }))
    .sort((a, b) => {
      const an = a.placement.name.number;
      const bn = b.placement.name.number;
      if (an !== undefined && bn !== undefined) return an - bn || a.index - b.index;
      if (an !== undefined) return -1;
      if (bn !== undefined) return 1;
      return a.index - b.index;
    });
  for (const { placement, index } of order) {
    const { name, assetId, url } = placement;
    const link: GroupLink = { assetId, url, label: name.label, numbered: name.number !== undefined };
    const existingAt = links.findIndex((l) => l.assetId === assetId);
    const replaceAt = (at: number) => {
      links[at] = link;
      // The asset was linked at another rank too: one link per asset and group.
      if (existingAt !== -1 && existingAt !== at) links.splice(existingAt, 1);
      outcomes[index] = 'updated';
    };
    const target =
      name.number !== undefined ? name.number - 1 : links.findIndex((l) => !l.numbered && l.label === name.label);
    if (name.number !== undefined ? target < links.length : target !== -1) {
      replaceAt(target);
    } else if (existingAt !== -1) {
      // Already linked under another name, asked for a new place: it moves to the end (ranks compact).
      links.splice(existingAt, 1);
      links.push(link);
      outcomes[index] = 'updated';
    } else {
      links.push(link);
      outcomes[index] = 'created';
    }
  }
  return { links, outcomes };
}
