import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium, noChromium, screenshot } from './support/browser.js';
import { ApiClient, GEO_CITY_FIXTURE, type ServeChild, startServe } from './support/serve-child.js';

// The dashboard (/dashboard, @svc/dashboard) in Debian's Chromium against `svc serve` as a child
// process: the page signs in with a key exchanged for a token and does everything else through
// the public /v2 API, which the test calls too, to change what the page shows and check it.

const run = promisify(execFile);
const E2E_DIR = fileURLToPath(new URL('.', import.meta.url));
const CLI = fileURLToPath(new URL('../packages/cli/src/bin.ts', import.meta.url));

let server: ServeChild;
let api: ApiClient;
let browser: Browser;
/** Every URL any page of the suite asked for: all must be the server's own. */
const requested = new Set<string>();

beforeAll(async () => {
  if (noChromium) return;
  server = await startServe({
    env: { SVC_GEO_DATABASES: GEO_CITY_FIXTURE, SVC_WEBHOOKS_ALLOW_PRIVATE_TARGETS: '127.0.0.0/8' },
  });
  api = await ApiClient.connect(server.url);
  browser = await launchChromium();
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await server?.stop();
});

async function open(
  options: { width?: number; height?: number } = {},
): Promise<{ context: BrowserContext; page: Page }> {
  const context = await browser.newContext({
    viewport: { width: options.width ?? 1200, height: options.height ?? 900 },
    acceptDownloads: true,
  });
  const page = await context.newPage();
  page.on('request', (request) => requested.add(request.url()));
  return { context, page };
}

async function signIn(page: Page, key: string): Promise<void> {
  await page.goto(`${server.url}/dashboard/`);
  await page.getByLabel('API key').fill(key);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('button', { name: 'Sign out' }).waitFor();
}

/** A new account on the given plan, made with `svc accounts create` on the server's data. */
async function createAccount(plan: string): Promise<{ liveKey: string; testKey: string }> {
  const { stdout } = await run(
    process.execPath,
    [
      '--conditions=source',
      '--import',
      'tsx',
      CLI,
      'accounts',
      'create',
      '--name',
      `dash-${plan}`,
      '--plan',
      plan,
      '--json',
    ],
    { cwd: E2E_DIR, env: { PATH: process.env.PATH ?? '', SVC_DATA_DIR: server.dataDir } },
  );
  const created = JSON.parse(stdout) as { keys: { environment: string; secret: string }[] };
  const secret = (environment: string) =>
    created.keys.find((key) => key.environment === environment)?.secret ?? '';
  return { liveKey: secret('live'), testKey: secret('test') };
}

describe.skipIf(noChromium)('the dashboard in Chromium', () => {
  it('signs in with a key it does not keep, and shows usage that changes after API calls', async () => {
    const { context, page } = await open();
    await page.goto(`${server.url}/dashboard`);
    // Keyboard only: the key field, then Enter.
    await page.keyboard.press('Tab');
    await page.keyboard.press('Tab');
    await expect
      .poll(() => page.evaluate<string | null>("document.activeElement?.getAttribute('name')"))
      .toBe('api-key');
    await page.keyboard.type(server.liveKey);
    await page.keyboard.press('Enter');
    await page.getByRole('heading', { name: 'Usage' }).waitFor();
    expect(await page.getByTestId('plan-name').textContent()).toBeTruthy();
    const storage = await page.evaluate<string>('JSON.stringify({ ...sessionStorage, ...localStorage })');
    expect(storage).toContain('tok_');
    expect(storage).not.toContain(server.liveKey);
    expect(await page.getByLabel('API key').count()).toBe(0);

    const before = Number((await page.getByTestId('total-units').textContent())?.replaceAll(',', ''));
    for (let i = 0; i < 3; i++) {
      expect((await api.request('GET', '/v2/geo/81.2.69.142', { key: server.liveKey })).status).toBe(200);
    }
    await page.reload();
    await expect
      .poll(async () => Number((await page.getByTestId('total-units').textContent())?.replaceAll(',', '')))
      .toBe(before + 3);
    const geoRow = page.locator('[data-testid="usage-lines"] tr[data-endpoint="geo_ip"]');
    expect(await geoRow.locator('td').nth(1).textContent()).toBe(String(3));
    // Today's bar in the chart.
    const today = new Date().toISOString().slice(0, 10);
    expect(await page.locator(`[data-testid="usage-chart"] rect[data-date="${today}"]`).count()).toBe(1);
    const invoice = await api.request<{ total: { units: number } }>('GET', '/v2/usage', {
      key: server.liveKey,
    });
    expect(await page.getByTestId('total-units').textContent()).toBe(
      invoice.body.total.units.toLocaleString('en-US'),
    );
    await screenshot(page, 'usage');

    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByTestId('sign-in-notice').waitFor();
    expect(await page.evaluate<number>('sessionStorage.length')).toBe(0);
    await context.close();
  });

  it('is readable at phone width: nothing wider than the screen', async () => {
    const { context, page } = await open({ width: 390, height: 844 });
    await signIn(page, server.liveKey);
    for (const route of ['usage', 'keys', 'jobs', 'health']) {
      await page.goto(`${server.url}/dashboard/#/${route}`);
      await page.locator('h1').first().waitFor();
      await page.waitForLoadState('networkidle');
      const overflow = await page.evaluate<number>(
        'document.documentElement.scrollWidth - window.innerWidth',
      );
      expect(overflow, route).toBeLessThanOrEqual(0);
      if (route === 'usage') await screenshot(page, 'usage-phone');
    }
    await context.close();
  });

  it('an expired session goes back to sign-in', async () => {
    const { context, page } = await open();
    await context.clock.install();
    await signIn(page, server.liveKey);
    await page.clock.fastForward('01:00:02');
    await page.getByTestId('sign-in-notice').waitFor();
    expect(await page.getByTestId('sign-in-notice').textContent()).toMatch(/session expired/);
    expect(await page.evaluate<number>('sessionStorage.length')).toBe(0);
    await context.close();
  });

  it('a revoked key ends its session; a 429 says when to retry; an unreachable server says so', {
    timeout: 60_000,
  }, async () => {
    const account = await createAccount('free');
    const { context, page } = await open();
    // A second live key of the account to sign in with, then revoked by the first.
    const second = await api.request<{ id: string; secret: string }>('POST', '/v2/keys', {
      key: account.liveKey,
      json: { environment: 'live', name: 'doomed' },
    });
    await signIn(page, second.body.secret);
    expect((await api.request('DELETE', `/v2/keys/${second.body.id}`, { key: account.liveKey })).status).toBe(
      200,
    );
    await page.getByRole('link', { name: 'Keys' }).click();
    await page.getByTestId('sign-in-notice').waitFor();
    expect(await page.getByTestId('sign-in-notice').textContent()).toMatch(
      /no longer accepts this session.*revoked/,
    );

    // Free plan: bursts of 10. Empty the account's bucket from the outside, then use the page.
    await signIn(page, account.liveKey);
    let limited = false;
    for (let i = 0; i < 30 && !limited; i++) {
      limited = (await api.request('GET', '/v2/account', { key: account.testKey })).status === 429;
    }
    expect(limited).toBe(true);
    await page.getByRole('link', { name: 'Batch jobs' }).click();
    await page.getByTestId('banner').waitFor();
    expect(await page.getByTestId('banner').textContent()).toMatch(/Rate limited.*Retry in \d+ s/);
    await screenshot(page, 'rate-limited');

    await context.setOffline(true);
    await page.getByRole('link', { name: 'Usage' }).click();
    await expect.poll(() => page.getByTestId('banner').textContent()).toMatch(/The server did not answer/);
    await context.setOffline(false);
    await context.close();
  });

  it('shows service health: the geo databases with their build dates and sources', async () => {
    const { context, page } = await open();
    await signIn(page, server.testKey);
    await page.getByRole('link', { name: 'Service health' }).click();
    const table = page.getByTestId('geo-databases');
    await table.waitFor();
    const health = await api.request<{
      geo: { databases: { id: string; source: string; built_at: string } }[];
    }>('GET', '/v2/health');
    expect(health.status).toBe(200);
    const text = await table.textContent();
    expect(text).toContain('GeoIP2-City');
    expect(text).toContain(GEO_CITY_FIXTURE);
    await screenshot(page, 'health');
    await context.close();
  });

  it('loads nothing from outside the server', () => {
    expect(requested.size).toBeGreaterThan(0);
    const outside = [...requested].filter(
      (url) => !url.startsWith(`${server.url}/`) && !/^(data|blob):/.test(url),
    );
    expect(outside).toEqual([]);
  });
});
