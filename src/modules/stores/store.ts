import type { MappingProfile } from '../products/mapping-profile.js';
import type { StoresTable } from '../../storage/schema.js';
import type { Selectable } from 'kysely';

/** A store as the services see it (camelCase; JSON columns parsed). */
export interface Store {
  id: string;
  workspaceId: string;
  name: string;
  website: string | null;
  countries: string[];
  channels: string[];
  defaultChannel: string;
  taxonomy: string;
  linkedStoreId: string | null;
  mappingProfile: MappingProfile | null;
  /** Synonym groups for text search (each group: terms that mean the same). */
  synonyms: string[][];
  /** The store's complement taxonomy JSON, or null for the shipped one. */
  complementsTaxonomy: string | null;
  /** The store's catalog vocabulary overrides JSON, or null for none. */
  vocabularyOverrides: string | null;
  /** The store's merchandising rules JSON (search and browse), or null for none. */
  searchRules: string | null;
  /** The store's change sequence when the row was read (every catalog write bumps it). */
  changeSeq: number;
  /** The version of the store's complement pins when the row was read (every change to them bumps it). */
  pinsVersion: number;
  /** The store's catalog language (BCP 47 primary tag): how its labels and text are read. */
  language: string;
  /** The language the text index holds (queries are analysed in it; `language` once a switch is indexed). */
  indexLanguage: string;
  createdAt: string;
}

export function storeFromRow(
  row: Omit<Selectable<StoresTable>, 'allowed_origins' | 'change_floor' | 'shopper_key' | 'tagging'>,
): Store {
  // The profile is parsed on first use: most requests (reads) never need it.
  let profile: MappingProfile | null | undefined;
  return {
    id: row.id,
    workspaceId: row.workspace_id,
    name: row.name,
    website: row.website,
    countries: JSON.parse(row.countries) as string[],
    channels: JSON.parse(row.channels) as string[],
    defaultChannel: row.default_channel,
    taxonomy: row.taxonomy,
    linkedStoreId: row.linked_store_id,
    get mappingProfile() {
      if (profile === undefined)
        profile = row.mapping_profile === null ? null : (JSON.parse(row.mapping_profile) as MappingProfile);
      return profile;
    },
    synonyms: row.synonyms ? (JSON.parse(row.synonyms) as string[][]) : [],
    complementsTaxonomy: row.complements,
    vocabularyOverrides: row.vocabulary,
    searchRules: row.search_rules,
    changeSeq: Number(row.change_seq),
    pinsVersion: Number(row.pins_version),
    language: row.language,
    indexLanguage: row.index_language,
    createdAt: row.created_at,
  };
}

/** The seed's store details (CONTRACT §9: every key always present). */
export interface StoreDetails {
  store_name: string;
  workspace_id: string;
  linked_store_id: string | null;
  store_website: string | null;
  country: string[];
  channels: Record<string, number>;
  store_taxonomy: string;
  /** The store's catalog language (BCP 47 primary tag; extension). */
  store_language: string;
}
