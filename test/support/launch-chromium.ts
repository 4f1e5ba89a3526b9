/**
 * Debian's Chromium driven by playwright-core: no browser download (this machine cannot fetch
 * one), and the flags that keep Chromium off the network it does not have (background networking,
 * component updates, sync), so it starts quickly and quietly.
 */
import { existsSync } from 'node:fs';
import { type Browser, chromium } from 'playwright-core';

const CANDIDATES = [process.env.CHROMIUM_PATH, '/usr/bin/chromium', '/usr/bin/chromium-browser'];

export function chromiumPath(): string {
  const found = CANDIDATES.find((path): path is string => !!path && existsSync(path));
  if (!found) {
    throw new Error(
      "Chromium not found: the /docs browser test needs Debian's chromium (sudo apt-get install chromium; .ci/run installs it) or CHROMIUM_PATH pointing at a Chromium binary.",
    );
  }
  return found;
}

export async function launchChromium(): Promise<{ browser: Browser; close: () => Promise<void> }> {
  // Playwright gives every launch a fresh, empty profile of its own.
  const browser = await chromium.launch({
    executablePath: chromiumPath(),
    headless: true,
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
  return {
    browser,
    close: () => browser.close(),
  };
}
