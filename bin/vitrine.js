#!/usr/bin/env node
// The operator CLI (CONTRACT §2). The TypeScript is compiled by `npm ci` (prepare) or `npm run build`.
import { existsSync } from 'node:fs';

const entry = new URL('../dist/src/cli/index.js', import.meta.url);
if (!existsSync(entry)) {
  process.stderr.write('vitrine: not built yet; run `npm run build` in the project directory\n');
  process.exit(1);
}
await import(entry.href);
