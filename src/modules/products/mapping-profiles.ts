import { NotFoundError } from '../../errors.js';
import type { StoresService } from '../stores/stores.service.js';
import { parseMappingProfile, type MappingProfile } from './mapping-profile.js';

/**
 * A store's mapping profile (CONTRACT §6): incoming field names to canonical ones, and the fields
 * every item must carry. The products module owns the rule; the store row keeps the profile.
 */
export class MappingProfiles {
  constructor(private readonly stores: StoresService) {}

  async get(storeUuid: string): Promise<MappingProfile> {
    const store = await this.stores.getStore(storeUuid);
    if (!store.mappingProfile) throw new NotFoundError('mapping profile not found', 'mapping');
    return store.mappingProfile;
  }

  /** Replaces the profile (422 naming the first bad entry). */
  async set(storeUuid: string, input: unknown): Promise<MappingProfile> {
    const profile = parseMappingProfile(input);
    await this.stores.saveMappingProfile(storeUuid, profile);
    return profile;
  }

  /** Removes the profile: product writes then answer 404 "mapping profile not found". */
  async remove(storeUuid: string): Promise<void> {
    await this.stores.saveMappingProfile(storeUuid, null);
  }
}
