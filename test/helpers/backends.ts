import net from 'node:net';

export const POSTGRES_URL = process.env.TEST_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
export const REDIS_URL = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';
/** Which engines the integration tests run on (Kysely's DIALECTS idea). */
export const DIALECTS = (process.env.TEST_DIALECTS ?? 'sqlite,postgres').split(',').map((d) => d.trim()) as Array<
  'sqlite' | 'postgres'
>;

function reachable(url: string): Promise<boolean> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve) => {
    const socket = net.connect({ host: hostname, port: Number(port) }, () => {
      socket.destroy();
      resolve(true);
    });
    socket.setTimeout(1500, () => {
      socket.destroy();
      resolve(false);
    });
    socket.on('error', () => resolve(false));
  });
}

export const postgresReachable = await reachable(POSTGRES_URL);
export const redisReachable = await reachable(REDIS_URL);

export const POSTGRES_SKIP = postgresReachable
  ? false
  : `SKIPPED: PostgreSQL not reachable at ${POSTGRES_URL} (the PostgreSQL half of this suite did not run)`;
export const REDIS_SKIP = redisReachable ? false : `SKIPPED: Redis not reachable at ${REDIS_URL}`;
