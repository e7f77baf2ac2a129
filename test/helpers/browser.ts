import fs from 'node:fs';
import http from 'node:http';
import { chromium, type Browser, type Page } from 'playwright-core';

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

/** Bytes on the wire for a browser that accepts brotli and gzip (fetch would decode them). */
export function transferSize(url: string): Promise<number> {
  return new Promise((resolve, reject) => {
    http
      .get(url, { headers: { 'accept-encoding': 'br, gzip' } }, (res) => {
        let bytes = 0;
        res.on('data', (chunk: Buffer) => (bytes += chunk.length));
        res.on('end', () => resolve(bytes));
      })
      .on('error', reject);
  });
}

/**
 * Starts recording the page's long tasks (main-thread work of 50 ms or more, as the browser's
 * Performance API reports them); the function returned reads their durations so far, in ms.
 */
export async function watchLongTasks(page: Page): Promise<() => Promise<number[]>> {
  await page.evaluate(() => {
    const seen: number[] = [];
    (window as unknown as { __long: number[] }).__long = seen;
    new PerformanceObserver((list) => {
      for (const entry of list.getEntries()) seen.push(entry.duration);
    }).observe({ type: 'longtask' });
  });
  return () => page.evaluate(() => (window as unknown as { __long: number[] }).__long);
}
