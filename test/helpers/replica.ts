import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { POSTGRES_URL, postgresReachable } from './backends.js';

/** A streaming standby of the test PostgreSQL server, started for a test and removed after it. */
export interface Replica {
  /** POSTGRES_URL with the standby's port. */
  url: string;
  /** Runs SQL on the standby (pg_wal_replay_pause() and the like). */
  query(text: string): Promise<void>;
  stop(): Promise<void>;
}

const asRoot = process.getuid?.() === 0;

/** Runs a PostgreSQL tool as the postgres user (the server refuses to run as root). */
function run(command: string, args: string[]): { ok: boolean; output: string } {
  const quoted = [command, ...args].map((part) => `'${part.replaceAll("'", `'\\''`)}'`).join(' ');
  const result = asRoot
    ? spawnSync('su', ['postgres', '-s', '/bin/sh', '-c', quoted], { encoding: 'utf8', timeout: 120_000 })
    : spawnSync(command, args, { encoding: 'utf8', timeout: 120_000 });
  return {
    ok: result.status === 0,
    output: `${result.stdout ?? ''}${result.stderr ?? ''}${result.error?.message ?? ''}`,
  };
}

async function freePort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** The server binaries of the running primary's major version (pg_ctl must match the data files). */
async function serverBinaries(): Promise<string | undefined> {
  const client = new pg.Client({ connectionString: POSTGRES_URL });
  await client.connect();
  try {
    const { rows } = await client.query<{ v: string }>("SELECT current_setting('server_version_num') AS v");
    const major = Math.floor(Number(rows[0].v) / 10_000);
    const dir = `/usr/lib/postgresql/${major}/bin`;
    return fs.existsSync(path.join(dir, 'pg_ctl')) ? dir : undefined;
  } finally {
    await client.end();
  }
}

/**
 * Starts a hot standby of the test server (`pg_basebackup -R`, then `pg_ctl start` on a free port),
 * or says why it cannot: the reason is the test's SKIPPED message.
 */
export async function startReplica(): Promise<Replica | string> {
  if (!postgresReachable) return `SKIPPED: PostgreSQL not reachable at ${POSTGRES_URL}`;
  const bin = await serverBinaries();
  if (!bin) return 'SKIPPED: no PostgreSQL server binaries (pg_ctl) of the running version on this machine';
  const primary = new URL(POSTGRES_URL);
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'vitrine-replica-'));
  if (asRoot) spawnSync('chown', ['postgres', dir]);
  fs.chmodSync(dir, 0o700);
  const remove = () => fs.rmSync(dir, { recursive: true, force: true });
  const backup = run(path.join(bin, 'pg_basebackup'), [
    '-h',
    primary.hostname,
    '-p',
    primary.port || '5432',
    '-U',
    primary.username || 'postgres',
    '-D',
    dir,
    '-R',
    '-X',
    'stream',
    '-c',
    'fast',
  ]);
  if (!backup.ok) {
    remove();
    return `SKIPPED: pg_basebackup could not copy the test server (${backup.output.trim().split('\n')[0]}); allow a replication connection from 127.0.0.1 in pg_hba.conf (.ci/run does)`;
  }
  const port = await freePort();
  // A packaged server keeps its configuration outside the data directory: the standby gets its own.
  const config = [
    `port = ${port}`,
    "listen_addresses = '127.0.0.1'",
    `unix_socket_directories = '${dir}'`,
    'hot_standby = on',
    // (a standby needs at least the primary's max_connections: left at the default like the primary's)
    `hba_file = '${dir}/pg_hba.conf'`,
    `ident_file = '${dir}/pg_ident.conf'`,
  ];
  const write = (name: string, text: string) => {
    fs.writeFileSync(path.join(dir, name), text);
    if (asRoot) spawnSync('chown', ['postgres', path.join(dir, name)]);
  };
  write('postgresql.conf', `${config.join('\n')}\n`);
  write('pg_hba.conf', 'local all all trust\nhost all all 127.0.0.1/32 trust\n');
  write('pg_ident.conf', '');
  const started = run(path.join(bin, 'pg_ctl'), [
    '-D',
    dir,
    '-l',
    path.join(dir, 'server.log'),
    '-w',
    '-t',
    '60',
    'start',
  ]);
  if (!started.ok) {
    const log = fs.existsSync(path.join(dir, 'server.log'))
      ? fs.readFileSync(path.join(dir, 'server.log'), 'utf8')
      : '';
    remove();
    return `SKIPPED: the standby did not start (${started.output.trim().split('\n').pop()} ${log.slice(-300)})`;
  }
  const url = new URL(POSTGRES_URL);
  url.port = String(port);
  return {
    url: url.toString(),
    async query(text: string) {
      const client = new pg.Client({ connectionString: url.toString() });
      await client.connect();
      try {
        await client.query(text);
      } finally {
        await client.end();
      }
    },
    async stop() {
      run(path.join(bin, 'pg_ctl'), ['-D', dir, '-m', 'immediate', '-w', 'stop']);
      remove();
    },
  };
}
