import { randomUUID } from 'node:crypto';
import os from 'node:os';

/**
 * Lease owners are named `<host>:<pid>:<what>-<random>`, so that a process can tell a lease held by a
 * process of its own host that no longer runs (killed with -9) and take it back at once, instead of
 * waiting for the lease to lapse. Leases of other hosts always wait for their expiry.
 */
const HOST_PREFIX = `${os.hostname()}:`;

export function processOwnerId(what: string): string {
  return `${HOST_PREFIX}${process.pid}:${what}-${randomUUID().slice(0, 8)}`;
}

/** True for an owner of this host whose process is gone. */
export function isDeadLocalOwner(owner: string | null | undefined): boolean {
  if (!owner?.startsWith(HOST_PREFIX)) return false;
  const pid = Number(owner.slice(HOST_PREFIX.length).split(':')[0]);
  if (!Number.isInteger(pid) || pid <= 0 || pid === process.pid) return false;
  try {
    process.kill(pid, 0);
    return false;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'ESRCH';
  }
}

export const LOCAL_OWNER_PATTERN = `${HOST_PREFIX}%`;
