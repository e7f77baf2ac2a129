// A stand-in API process for the cluster write-lock test: it asks for the lock with a short wait,
// reports how that went, and stays a moment to receive a grant that comes too late.
import { withClusterWriteLock } from '../../src/cluster/write-lock.js';

try {
  await withClusterWriteLock(() => Promise.resolve(), 200);
  process.send!({ type: 'test:result', ok: true });
} catch (error) {
  process.send!({ type: 'test:result', error: (error as Error).message });
}
setTimeout(() => process.exit(0), 5000);
