// Runs every compiled bench/*.bench.js in turn (or those named on the command line).
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';

const only = process.argv.slice(2);
const files = fs
  .readdirSync('build/bench')
  .filter((f) => f.endsWith('.bench.js') && (only.length === 0 || only.some((o) => f.includes(o))))
  .sort();
let failed = 0;
for (const file of files) {
  console.log(`\n### ${file}`);
  const result = spawnSync(process.execPath, [`build/bench/${file}`], { stdio: 'inherit' });
  if (result.status !== 0) failed++;
}
process.exit(failed ? 1 : 0);
