/**
 * Headless Chromium (Debian's package) driven by playwright-core, for tests of pages. Without the binary the page
 * tests skip, saying so — except under PARLEY_REQUIRE_ALL=1, where a missing browser is a failure.
 */
import fs from 'node:fs';
import { chromium, type Browser } from 'playwright-core';
import { requireAll } from './database.ts';

export const CHROMIUM_PATH = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
export const hasChromium = fs.existsSync(CHROMIUM_PATH);

if (!hasChromium) {
  if (requireAll) throw new Error(`Chromium is required when PARLEY_REQUIRE_ALL=1 (looked for ${CHROMIUM_PATH})`);
  process.stderr.write(`Chromium not found at ${CHROMIUM_PATH}: page tests skip (apt-get install chromium)\n`);
}

export function launchBrowser(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM_PATH,
    // This machine has no network beyond its registries: background networking would only fail, noisily.
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
}
