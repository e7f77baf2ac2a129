// Runs the compiled test files with node's test runner, after saying which backends are reachable.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';

const probe = (url) =>
  new Promise((resolve) => {
    const { hostname, port } = new URL(url);
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

const pgUrl = process.env.TEST_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const redisUrl = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';
const dialects = process.env.TEST_DIALECTS ?? 'sqlite,postgres';
const pg = dialects.includes('postgres') && (await probe(pgUrl));
const redis = await probe(redisUrl);
console.log(
  `Test engines: SQLite yes; PostgreSQL ${pg ? `yes (${pgUrl})` : `NO - the PostgreSQL half of every suite is SKIPPED (${dialects.includes('postgres') ? `nothing at ${pgUrl}` : 'TEST_DIALECTS'})`}; Redis ${redis ? 'yes' : 'NO - Redis tests SKIPPED'}`,
);

const chromium = process.env.VITRINE_CHROMIUM ?? '/usr/bin/chromium';
const haveChromium = fs.existsSync(chromium);
console.log(
  `Browser: ${haveChromium ? `Chromium yes (${chromium})` : `NO Chromium at ${chromium} - the console's browser tests are SKIPPED (apt-get install -y chromium)`}`,
);

const walk = (dir) =>
  fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    return entry.isDirectory() ? walk(full) : entry.name.endsWith('.test.js') ? [full] : [];
  });
const only = process.argv.slice(2);
const files = walk('build/test')
  .filter((file) => only.length === 0 || only.some((o) => file.includes(o)))
  .sort();
// A file that runs past its timeout is killed and reported by name: a hang fails the suite instead of
// holding CI until its own limit (the longest file takes about a minute).
const FILE_TIMEOUT_MS = 10 * 60 * 1000;
// The browser tests time frames and renders (no frame over 100 ms, a page in under 300 ms): they run
// after the rest, alone, so that two other test files do not share the two cores with Chromium (a frame
// test failed on a loaded CI run of an unchanged build).
const timed = files.filter((file) => file.includes(`${path.sep}browser${path.sep}`));
const run = (batch, concurrency) =>
  batch.length === 0
    ? 0
    : (spawnSync(
        process.execPath,
        ['--test', `--test-concurrency=${concurrency}`, `--test-timeout=${FILE_TIMEOUT_MS}`, ...batch],
        { stdio: 'inherit' },
      ).status ?? 1);
const others = files.filter((file) => !timed.includes(file));
const statuses = [run(others, 3), run(timed, 1)];
if (!pg && dialects.includes('postgres')) console.log('NOTE: PostgreSQL tests were SKIPPED (not reachable).');
if (!haveChromium) console.log(`NOTE: the console's browser tests were SKIPPED (no Chromium at ${chromium}).`);
process.exit(statuses.find((status) => status !== 0) ?? 0);
