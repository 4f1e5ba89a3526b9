/**
 * The interactive reference at GET /docs, in a real browser: Swagger UI renders every operation of
 * /openapi.json, with no request leaving the machine (assets are served locally), no CSP violation
 * and no console error, also with every operation and schema opened; and its "Try it out" calls
 * the local gateway with the key given to Authorize. A screenshot is kept in test-artifacts/ for a human to look at.
 */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PROJECT_ROOT } from '#infra/project-root';
import { routes } from '#shared/api/route-table';
import { launchChromium } from '#test/support/launch-chromium';
import { startTestApi, type TestApi, uniqueTenant } from '#test/support/test-api';

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

/** What the functions run in the page use of its globals: the project compiles without the DOM library. */
interface PageGlobals {
  document: {
    querySelectorAll(selector: string): Iterable<{ click(): void }>;
    addEventListener(
      type: 'securitypolicyviolation',
      listener: (event: { violatedDirective: string; blockedURI: string }) => void,
    ): void;
  };
  cspViolations: string[];
  /** The Swagger UI instance our init script keeps. */
  ui: { layoutActions: { show: (thing: string[], shown: boolean) => void } };
}

interface Watched {
  page: Page;
  foreign: string[];
  failed: string[];
  pageErrors: string[];
  consoleErrors: string[];
  /** CSP violations as the page's own `securitypolicyviolation` events report them. */
  cspViolations: () => Promise<string[]>;
}

/** A page that records everything that would mean the reference is broken or leaks. */
async function watchedPage(): Promise<Watched> {
  const page = await browser.newPage({ viewport: { width: 1400, height: 1000 } });
  const watched: Omit<Watched, 'cspViolations'> = { page, foreign: [], failed: [], pageErrors: [], consoleErrors: [] };
  page.on('request', (request) => {
    const url = request.url();
    if (!url.startsWith(api.url) && !url.startsWith('data:') && !url.startsWith('blob:')) watched.foreign.push(url);
  });
  page.on('requestfailed', (request) => watched.failed.push(`${request.url()}: ${request.failure()?.errorText}`));
  page.on('pageerror', (error) => watched.pageErrors.push(error.message));
  // Chromium also logs every CSP refusal here ("Refused to load ...").
  page.on('console', (message) => {
    if (message.type() === 'error') watched.consoleErrors.push(message.text());
  });
  // Playwright's init scripts run before the page's own and are not subject to its CSP.
  await page.addInitScript(() => {
    const globals = globalThis as unknown as PageGlobals;
    globals.cspViolations = [];
    globals.document.addEventListener('securitypolicyviolation', (event) =>
      globals.cspViolations.push(`${event.violatedDirective}: ${event.blockedURI}`),
    );
  });
  const cspViolations = () => page.evaluate(() => (globalThis as unknown as PageGlobals).cspViolations);
  return { ...watched, cspViolations };
}

async function expectClean(watched: Watched): Promise<void> {
  expect(watched.foreign, 'requests to another origin').toEqual([]);
  expect(watched.failed, 'failed requests').toEqual([]);
  expect(watched.pageErrors, 'uncaught errors').toEqual([]);
  expect(watched.consoleErrors, 'console errors').toEqual([]);
  expect(await watched.cspViolations(), 'CSP violations').toEqual([]);
}

interface OpenApiDocument {
  paths: Record<string, Record<string, { operationId: string; tags: string[]; summary: string }>>;
  webhooks: Record<string, unknown>;
  components: { schemas: Record<string, unknown> };
}

/** Operations open at once while the CSP is checked with each opened. */
const OPEN_AT_ONCE = 6;

/**
 * Room for the tests that open everything. Swagger UI spends 0.7-1.2 s of Chromium's CPU on each
 * operation it opens (Try it out is on), 20 s for the API's 20 on an idle machine; beside three
 * other workers on two cores a run took over the suite's 60 s.
 */
const OPENS_EVERYTHING = { timeout: 150_000 };

const openApiDocument = async () => (await (await fetch(`${api.url}/openapi.json`)).json()) as OpenApiDocument;
const documentOperations = async () =>
  Object.values((await openApiDocument()).paths).flatMap((item) => Object.values(item));

describe('GET /docs in Chromium', () => {
  it('renders every operation of the local document, loading nothing from elsewhere', async () => {
    const operations = await documentOperations();
    expect(operations.map((operation) => operation.operationId)).toEqual(
      expect.arrayContaining(routes.map((route) => route.id)),
    );

    const watched = await watchedPage();
    const { page } = watched;
    const response = await page.goto(`${api.url}/docs`, { waitUntil: 'networkidle' });
    expect(response?.status()).toBe(200);
    await page
      .locator('.swagger-ui .information-container .title')
      .filter({ hasText: 'CXM API' })
      .waitFor({ timeout: 20_000 });
    // Swagger UI gives each operation block the id operations-<tag>-<operationId>.
    for (const operation of operations) {
      const block = page.locator(`#operations-${operation.tags[0]}-${operation.operationId}`);
      await expect
        .poll(() => block.count(), {
          timeout: 20_000,
          message: `operation ${operation.operationId} is not on the page`,
        })
        .toBe(1);
      expect(await block.locator('.opblock-summary-description').textContent()).toBe(operation.summary);
    }
    // The webhooks section's events are blocks too, one per event type.
    const webhooks = Object.keys((await openApiDocument()).webhooks);
    expect(webhooks.length).toBeGreaterThan(0);
    expect(await page.locator('.opblock').count()).toBe(operations.length + webhooks.length);
    // Swagger UI lists what it could not resolve or parse in the document here.
    expect(await page.locator('.errors-wrapper').count()).toBe(0);
    // The bearer scheme can be given a key.
    expect(await page.locator('.scheme-container button.authorize').count()).toBe(1);

    mkdirSync(ARTIFACTS, { recursive: true });
    await page.screenshot({ path: join(ARTIFACTS, 'docs-page.png'), fullPage: false });
    await expectClean(watched);
    await page.close();
  });

  // Opened, operations render parameters, bodies, examples and responses, and schemas their
  // properties: the strict CSP (no inline style or script) must hold for all of it.
  it('keeps to its CSP with every operation opened', OPENS_EVERYTHING, async () => {
    const operations = await documentOperations();
    const watched = await watchedPage();
    const { page } = watched;
    await page.goto(`${api.url}/docs`, { waitUntil: 'networkidle' });
    await page.locator('.opblock').first().waitFor({ timeout: 20_000 });
    // Through Swagger UI's own layout state, a few at a time, each few closed before the next
    // opens: every opening re-renders all the open operations, so opening them all at once cost
    // Chromium 30-60 s of CPU, and clicking them one by one more.
    const show = (things: string[][], shown: boolean) =>
      page.evaluate(
        ({ things, shown }) => {
          const { ui } = globalThis as unknown as PageGlobals;
          for (const thing of things) ui.layoutActions.show(thing, shown);
        },
        { things, shown },
      );
    const opened = page.locator('.opblock .responses-wrapper');
    let rendered = 0;
    for (let start = 0; start < operations.length; start += OPEN_AT_ONCE) {
      const few = operations
        .slice(start, start + OPEN_AT_ONCE)
        .map((operation) => ['operations', operation.tags[0]!, operation.operationId]);
      await show(few, true);
      await expect.poll(() => opened.count(), { timeout: 30_000 }).toBe(few.length);
      rendered += few.length;
      await show(few, false);
      await expect.poll(() => opened.count(), { timeout: 30_000 }).toBe(0);
    }
    expect(rendered).toBe(operations.length);
    await expectClean(watched);
    await page.close();
  });

  it('keeps to its CSP with every schema opened', OPENS_EVERYTHING, async () => {
    const document = await openApiDocument();
    const watched = await watchedPage();
    const { page } = watched;
    await page.goto(`${api.url}/docs`, { waitUntil: 'networkidle' });
    const schemas = page.locator('section.models article[data-json-schema-level="0"]');
    await schemas.first().waitFor({ timeout: 20_000 });
    expect(await schemas.count()).toBe(Object.keys(document.components.schemas).length);
    // "Expand all" of each schema, a few at a time, each few collapsed again before the next: an
    // expansion re-renders every expanded schema, so all at once cost Chromium 15-55 s of CPU.
    const deep = schemas.locator('> .json-schema-2020-12-head .json-schema-2020-12-expand-deep-button');
    const names = Object.keys(document.components.schemas);
    const press = (from: number, to: number) =>
      page.evaluate(
        ({ from, to }) => {
          const { document: page } = globalThis as unknown as PageGlobals;
          const buttons = page.querySelectorAll(
            'section.models article[data-json-schema-level="0"] > .json-schema-2020-12-head .json-schema-2020-12-expand-deep-button',
          );
          for (const button of [...buttons].slice(from, to)) button.click();
        },
        { from, to },
      );
    const labels = async (from: number, to: number) => (await deep.allTextContents()).slice(from, to);
    for (let from = 0; from < names.length; from += OPEN_AT_ONCE) {
      const to = Math.min(names.length, from + OPEN_AT_ONCE);
      await press(from, to);
      await expect.poll(() => labels(from, to), { timeout: 30_000 }).toEqual(Array(to - from).fill('Collapse all'));
      await press(from, to);
      await expect.poll(() => labels(from, to), { timeout: 30_000 }).toEqual(Array(to - from).fill('Expand all'));
    }
    await expectClean(watched);
    await page.close();
  });

  it('"Try it out": authorizes with a key and calls the local gateway from the page', async () => {
    const tenant = uniqueTenant('docs');
    await api.addDocument(tenant, 'bots', 'bot-from-docs', { name: 'Helper' });
    const { key } = await api.createKey([tenant], ['provisioning:bots.read']);

    const watched = await watchedPage();
    const { page } = watched;
    await page.goto(`${api.url}/docs`, { waitUntil: 'networkidle' });

    await page.locator('.scheme-container button.authorize').click();
    const dialog = page.locator('.dialog-ux .modal-ux');
    await dialog.locator('.auth-container input').fill(key);
    await dialog.locator('.auth-btn-wrapper button.authorize').click();
    await dialog.locator('.auth-btn-wrapper button.btn-done').click();

    const operation = page.locator('#operations-provisioning-listDocuments');
    await operation.locator('.opblock-summary').click();
    await operation.locator('tr[data-param-name="tenantId"] input').fill(tenant);
    await operation.locator('tr[data-param-name="collection"] input').fill('bots');
    // Swagger UI fills parameters with the document's examples: the example cursor is another listing's.
    await operation.locator('tr[data-param-name="cursor"] input').fill('');
    await operation.locator('tr[data-param-name="limit"] input').fill('5');
    const sent = page.waitForRequest((request) => request.url().startsWith(`${api.url}/api/v1/provisioning/`));
    await operation.locator('button.execute').click();

    const request = await sent;
    expect(request.url()).toBe(`${api.url}/api/v1/provisioning/tenants/${tenant}/bots?limit=5`);
    expect(await request.headerValue('authorization')).toBe(`Bearer ${key}`);
    const live = operation.locator('.live-responses-table .response');
    await expect.poll(() => live.locator('.response-col_status').textContent(), { timeout: 20_000 }).toBe('200');
    expect(
      await live.locator('.response-col_description .microlight, .response-col_description pre').first().textContent(),
    ).toContain('bot-from-docs');

    mkdirSync(ARTIFACTS, { recursive: true });
    await page.screenshot({ path: join(ARTIFACTS, 'docs-page-try-it-out.png'), fullPage: false });
    await expectClean(watched);
    await page.close();
  });
});
