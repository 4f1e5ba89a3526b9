/**
 * The interactive reference at GET /docs, in a real browser: every operation of the route table
 * renders from /openapi.json, with no request leaving the machine (assets are served locally).
 * A screenshot is kept in test-artifacts/ for a human to look at.
 */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PROJECT_ROOT } from '#infra/project-root';
import { routes } from '#shared/routes';
import { launchChromium } from '#test/support/launch-chromium';
import { startTestApi, type TestApi } from '#test/support/test-api';

const ARTIFACTS = join(PROJECT_ROOT, 'test-artifacts');

let api: TestApi;
let browser: Browser;
let closeBrowser: () => Promise<void>;

beforeAll(async () => {
  api = await startTestApi();
  ({ browser, close: closeBrowser } = await launchChromium());
});
afterAll(async () => {
  await closeBrowser?.();
  await api?.close();
});

describe('GET /docs in Chromium', () => {
  it('renders all nine operations from the local document, loading nothing from elsewhere', async () => {
    const page = await browser.newPage({ viewport: { width: 1400, height: 1000 } });
    const foreign: string[] = [];
    const failed: string[] = [];
    const pageErrors: string[] = [];
    page.on('request', (request) => {
      const url = request.url();
      if (!url.startsWith(api.url) && !url.startsWith('data:') && !url.startsWith('blob:')) foreign.push(url);
    });
    page.on('requestfailed', (request) => failed.push(`${request.url()}: ${request.failure()?.errorText}`));
    page.on('pageerror', (error) => pageErrors.push(error.message));

    const response = await page.goto(`${api.url}/docs`, { waitUntil: 'networkidle' });
    expect(response?.status()).toBe(200);
    expect(routes).toHaveLength(9);
    for (const route of routes) {
      await expect
        .poll(async () => page.getByText(route.summary, { exact: true }).count(), { timeout: 20_000, message: `operation ${route.id} ("${route.summary}") is not on the page` })
        .toBeGreaterThan(0);
    }

    mkdirSync(ARTIFACTS, { recursive: true });
    await page.screenshot({ path: join(ARTIFACTS, 'docs-page.png'), fullPage: false });
    expect(foreign).toEqual([]);
    expect(failed).toEqual([]);
    expect(pageErrors).toEqual([]);
    await page.close();
  });
});
