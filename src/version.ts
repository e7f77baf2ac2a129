import { createRequire } from 'node:module';

/** The package version, read once from package.json (the CLI's --version and the OpenAPI info). */
export const VERSION: string = (createRequire(import.meta.url)('../../package.json') as { version: string }).version;
