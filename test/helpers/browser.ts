import fs from 'node:fs';
import { chromium, type Browser } from 'playwright-core';

/** Debian's Chromium (`apt-get install chromium`), or VITRINE_CHROMIUM. */
export const CHROMIUM = process.env.VITRINE_CHROMIUM ?? '/usr/bin/chromium';
export const HAVE_CHROMIUM = fs.existsSync(CHROMIUM);
export const CHROMIUM_SKIP = HAVE_CHROMIUM
  ? false
  : `no Chromium at ${CHROMIUM} (apt-get install -y chromium, or set VITRINE_CHROMIUM): the console's browser tests are SKIPPED`;

/** Headless, and silent on this machine's closed network (no background connections, no updates). */
export function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-background-networking',
      '--disable-component-update',
      '--no-first-run',
      '--disable-sync',
      '--disable-dev-shm-usage',
    ],
  });
}
