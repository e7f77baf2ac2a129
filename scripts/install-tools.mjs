// Installs the developer tooling of tools/ (linters, formatter, load generator) when it is missing or
// older than tools/package-lock.json; `npm ci` of the project itself does not need it.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';

const lock = 'tools/package-lock.json';
const marker = 'tools/node_modules/.package-lock.json';
const fresh = fs.existsSync(marker) && fs.statSync(marker).mtimeMs >= fs.statSync(lock).mtimeMs;
if (!fresh) {
  const result = spawnSync('npm', ['ci', '--prefix', 'tools', '--no-audit', '--no-fund', '--loglevel=error'], {
    stdio: 'inherit',
  });
  process.exit(result.status ?? 1);
}
