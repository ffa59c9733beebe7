import { execFile } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import {
  type FakeDnsServer,
  type SmtpFleet,
  startDnsServer,
  startSmtpServer,
  startWebhookReceiver,
} from '@svc/testkit';
import { verifyPayload } from '@svc/webhooks';
import type { Browser, BrowserContext, Locator, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium, noChromium, screenshot } from './support/browser.js';
import { probeIdentityZones } from './support/probe-identity.js';
import { ApiClient, GEO_CITY_FIXTURE, type ServeChild, startServe } from './support/serve-child.js';

// The dashboard (/dashboard, @svc/dashboard) in Debian's Chromium against `svc serve` as a child
// process: the page signs in with a key exchanged for a token and does everything else through
// the public /v2 API, which the test calls too, to change what the page shows and check it.

const run = promisify(execFile);
const E2E_DIR = fileURLToPath(new URL('.', import.meta.url));
const CLI = fileURLToPath(new URL('../packages/cli/src/bin.ts', import.meta.url));

let server: ServeChild;
let dns: FakeDnsServer;
let mta: SmtpFleet;
/** Domains whose DNS answers take 5 s: a verify_email job over them runs long enough to cancel. */
const SLOW_DOMAINS = Array.from({ length: 60 }, (_, i) => `d${i}.slow.test`);
let api: ApiClient;
let browser: Browser;
/** Every URL any page of the suite asked for: all must be the server's own. */
const requested = new Set<string>();
/** Console messages about the page's Content-Security-Policy: the page must need no exception. */
const cspViolations: string[] = [];

beforeAll(async () => {
  if (noChromium) return;
  // The owner's health page starts the email probing self-check: its every question goes to the
  // testkit (this DNS server, an MTA on loopback), never to the internet.
  dns = await startDnsServer({
    zones: {
      ...Object.fromEntries(
        SLOW_DOMAINS.map((name) => [
          name,
          { MX: [{ priority: 10, exchange: 'mx.slow.test' }], delayMs: 5_000 },
        ]),
      ),
      ...probeIdentityZones('dash.test'),
    },
  });
  mta = await startSmtpServer({ script: { ehloGreeting: 'mx.test Hello {helo} [{client}]' } });
  server = await startServe({
    env: {
      SVC_DNS: dns.address,
      // The one name of the default canaries this DNS server serves: the resolver is trusted.
      SVC_DNS_CANARIES: 'ietf.org',
      SVC_SMTP_PORT: String(mta.port),
      SVC_SMTP_HELO_NAME: 'probe.dash.test',
      SVC_SMTP_MAIL_FROM: 'bounce@dash.test',
      SVC_PROBING_INTERVAL_SECONDS: '21600',
      SVC_PROBING_TEST_HOST: '127.0.0.1',
      SVC_PROBING_PUBLIC_ADDRESS: '203.0.113.5',
      SVC_PROBING_BLOCKLISTS: 'zen.spamhaus.org',
      SVC_GEO_DATABASES: GEO_CITY_FIXTURE,
      SVC_WEBHOOKS_ALLOW_PRIVATE_TARGETS: '127.0.0.0/8',
      // A plan whose bucket refills slowly, so a 429 seen by the test is still one for the page.
      SVC_PLAN_SLOW_RATE_PER_SECOND: '0.05',
      SVC_PLAN_SLOW_BURST: '15',
    },
  });
  api = await ApiClient.connect(server.url);
  browser = await launchChromium();
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await server?.stop();
  await Promise.all([dns?.close(), mta?.close()]);
});

/** The stylesheet's --ok, --warn and --danger colours as the browser computes them. */
const GREEN = 'rgb(26, 127, 55)';
const WARNING = 'rgb(154, 103, 0)';
const DANGER = 'rgb(180, 35, 24)';

/** The colour the browser computes for what the locator finds. */
function colourOf(locator: Locator): Promise<string> {
  return locator.evaluate(
    (element) =>
      (globalThis as unknown as { getComputedStyle(e: unknown): { color: string } }).getComputedStyle(element)
        .color,
  );
}

async function open(
  options: { width?: number; height?: number } = {},
): Promise<{ context: BrowserContext; page: Page }> {
  const context = await browser.newContext({
    viewport: { width: options.width ?? 1200, height: options.height ?? 900 },
    acceptDownloads: true,
  });
  const page = await context.newPage();
  page.on('request', (request) => requested.add(request.url()));
  page.on('console', (message) => {
    if (/Content.Security.Policy/i.test(message.text())) cspViolations.push(message.text());
  });
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
    for (const route of ['usage', 'keys', 'jobs', 'feedback', 'health']) {
      await page.goto(`${server.url}/dashboard/#/${route}`);
      await page.locator('h1').first().waitFor();
      await page.waitForLoadState('networkidle');
      const overflow = await page.evaluate<number>(
        'document.documentElement.scrollWidth - window.innerWidth',
      );
      expect(overflow, route).toBeLessThanOrEqual(0);
      // Every control has an accessible name (an unnamed one shows as a bare role in the tree).
      const tree = await page.locator('body').ariaSnapshot();
      expect(tree, route).toMatch(/- (button|textbox|combobox) "/);
      expect(
        tree.match(/^\s*- (textbox|combobox|button|checkbox|spinbutton|link)(:|\s*$|\s+\[)/gm),
        route,
      ).toBeNull();
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
    const account = await createAccount('slow');
    const { context, page } = await open();
    // A second live key of the account to sign in with, then revoked by the first.
    const second = await api.request<{ id: string; secret: string }>('POST', '/v2/keys', {
      key: account.liveKey,
      json: { environment: 'live', name: 'doomed' },
    });
    await signIn(page, second.body.secret);
    await page.getByTestId('total-units').waitFor();
    expect((await api.request('DELETE', `/v2/keys/${second.body.id}`, { key: account.liveKey })).status).toBe(
      200,
    );
    await page.getByRole('link', { name: 'Keys' }).click();
    await page.getByTestId('sign-in-notice').waitFor();
    expect(await page.getByTestId('sign-in-notice').textContent()).toMatch(
      /no longer accepts this session.*revoked/,
    );

    // The slow plan: bursts of 15, one more every 20 s. Empty the bucket from outside, then use the page.
    await signIn(page, account.liveKey);
    let limited = false;
    for (let i = 0; i < 30 && !limited; i++) {
      limited = (await api.request('GET', '/v2/account', { key: account.testKey })).status === 429;
    }
    expect(limited).toBe(true);
    await page.getByRole('navigation').getByRole('link', { name: 'Batch jobs' }).click();
    await page.getByTestId('banner').waitFor();
    expect(await page.getByTestId('banner').textContent()).toMatch(/Rate limited.*Retry in \d+ s/);
    await screenshot(page, 'rate-limited');

    await context.setOffline(true);
    await page.getByRole('link', { name: 'Usage' }).click();
    await expect.poll(() => page.getByTestId('banner').textContent()).toMatch(/The server did not answer/);
    await context.setOffline(false);
    await context.close();
  });

  it("shows service health: the geo databases, and the owner's email probing self-check", async () => {
    const { context, page } = await open();
    await signIn(page, server.testKey);
    await page.getByRole('link', { name: 'Service health' }).click();
    const table = page.getByTestId('geo-databases');
    await table.waitFor();
    const text = await table.textContent();
    expect(text).toContain('GeoIP2-City');
    // The owner's token (the test key is the owner's) sees where the file is.
    expect(text).toContain(GEO_CITY_FIXTURE);
    // The first owner request starts the self-check in the background; reload until it is ready.
    let shown: string[] = [];
    for (let i = 0; i < 60 && shown.length === 0; i++) {
      await page.reload();
      await page.getByTestId('probing').waitFor();
      shown = await page
        .locator('[data-testid="probing"] tr[data-check]')
        .evaluateAll((rows) => rows.map((row) => row.getAttribute('data-check') ?? ''));
      if (shown.length === 0) await new Promise((resolve) => setTimeout(resolve, 250));
    }
    const health = await api.request<{
      failing: string[];
      probing: { report: { checks: { id: string }[] } };
    }>('GET', '/v2/health', {
      key: server.testKey,
    });
    expect(shown).toEqual(health.body.probing.report.checks.map((check) => check.id));
    expect(shown).toContain('reverse_dns');
    // Green only when nothing the page shows failed.
    const status = page.getByTestId('health-status');
    const failed = health.body.failing.length > 0;
    expect(await status.textContent()).toBe(failed ? 'degraded' : 'ok');
    expect(await colourOf(status)).toBe(failed ? WARNING : GREEN);
    await screenshot(page, 'health');
    await context.close();
  });

  it("shows delivery feedback: a provider's events, a domain's bounce rate, the webhook path", async () => {
    const put = await api.request<{ webhook_path: string }>('PUT', '/v2/feedback/providers/generic', {
      key: server.liveKey,
      json: { secret: 'dash-feedback-secret' },
    });
    expect(put.status).toBe(200);
    const at = new Date().toISOString();
    const received = await api.request('POST', put.body.webhook_path, {
      headers: { authorization: 'Bearer dash-feedback-secret' },
      json: {
        events: [
          { id: 'dash_1', address: 'ann.lee@feedback-dash.example', event: 'delivered', at },
          {
            id: 'dash_2',
            address: 'a.lee@feedback-dash.example',
            event: 'hard_bounce',
            at,
            bounce_type: 'hard',
            diagnostic: 'smtp; 550 5.1.1 <a.lee@feedback-dash.example>: user unknown',
          },
        ],
      },
    });
    expect(received.status).toBe(200);
    const { context, page } = await open();
    await signIn(page, server.testKey);
    await page.getByRole('link', { name: 'Feedback' }).click();
    await page.getByTestId('feedback-provider-events').waitFor();
    expect(await page.getByTestId('feedback-events').textContent()).toBe('2');
    const events = page.locator('[data-testid="feedback-provider-events"] tr[data-provider="generic"] td');
    expect(await events.allTextContents()).toEqual(['generic', '1', '1', '0', '0', '0']);
    const domain = page.locator(
      '[data-testid="feedback-domains"] tr[data-domain="feedback-dash.example"] td',
    );
    expect(await domain.allTextContents()).toEqual(['feedback-dash.example', '1', '1', '50.0 %']);
    expect(await page.getByTestId('feedback-configured').textContent()).toContain(put.body.webhook_path);
    await screenshot(page, 'feedback');
    await context.close();
  });

  it('shows a degraded server (its resolver denies the canary names) in the warning colour, never green', async () => {
    // A second server whose resolver answers NXDOMAIN for every name, as one that cannot see the
    // internet does.
    const lying = await startDnsServer({ zones: { '*': 'NXDOMAIN' } });
    const degraded = await startServe({
      env: { SVC_DNS: lying.address, SVC_GEO_DATABASES: GEO_CITY_FIXTURE },
    });
    // Not through open(): this page talks to the second server, which the suite's last check
    // (every request to the suite's server) must not count.
    const context = await browser.newContext({ viewport: { width: 1200, height: 900 } });
    const page = await context.newPage();
    try {
      await page.goto(`${degraded.url}/dashboard/`);
      await page.getByLabel('API key').fill(degraded.testKey);
      await page.getByRole('button', { name: 'Sign in' }).click();
      await page.getByRole('button', { name: 'Sign out' }).waitFor();
      await page.getByRole('link', { name: 'Service health' }).click();
      const status = page.getByTestId('health-status');
      await status.waitFor();
      // The canary check runs at start; reload until it has ended.
      for (let i = 0; i < 40 && (await status.textContent()) !== 'degraded'; i++) {
        await new Promise((resolve) => setTimeout(resolve, 250));
        await page.reload();
        await status.waitFor();
      }
      expect(await status.textContent()).toBe('degraded');
      expect(await colourOf(status)).toBe(WARNING);
      expect(await page.getByTestId('health-failing').textContent()).toBe('Failing: dns_resolver');
      const row = page.locator('[data-testid="health-checks"] tr[data-check="dns_resolver"]');
      expect(await row.locator('td.status').textContent()).toBe('failed');
      expect(await colourOf(row.locator('td.status'))).toBe(DANGER);
      expect(await row.textContent()).toContain('NXDOMAIN for iana.org');
      await screenshot(page, 'health-degraded');
    } catch (error) {
      await screenshot(page, 'health-degraded-failed');
      throw error;
    } finally {
      await context.close();
      await degraded.stop();
      await lying.close();
    }
  }, 90_000);

  it('creates a live key shown once, then only its prefix; rotates and revokes it (then 401)', async () => {
    const { context, page } = await open();
    await signIn(page, server.liveKey);
    await page.getByRole('link', { name: 'Keys' }).click();
    await page.getByLabel('Environment').selectOption('live');
    await page.getByLabel('Name (optional)').fill('from the dashboard');
    await page.getByRole('button', { name: 'Create key' }).click();
    const secret = (await page.getByTestId('secret-value').inputValue()) ?? '';
    expect(secret).toMatch(/^sk_live_[0-9a-z]{40}$/);
    expect((await api.request('GET', '/v2/account', { key: secret })).status).toBe(200);
    await context.grantPermissions(['clipboard-read', 'clipboard-write']);
    await page.getByRole('button', { name: 'Copy' }).click();
    await expect.poll(() => page.evaluate<string>('navigator.clipboard.readText()')).toBe(secret);
    await screenshot(page, 'keys-created');

    // Reloaded: the secret is nowhere on the page or in the browser's storage, only prefix…last4.
    await page.reload();
    const row = page.locator('tr', { hasText: 'from the dashboard' });
    await row.waitFor();
    expect(await row.getByTestId('key-masked').textContent()).toBe(`sk_live_…${secret.slice(-4)}`);
    expect(await page.content()).not.toContain(secret);
    expect(
      await page.evaluate<string>('JSON.stringify({ ...sessionStorage, ...localStorage })'),
    ).not.toContain(secret);
    await screenshot(page, 'keys');

    // Rotate with no grace: the old secret stops now, the new one (shown once) works.
    await row.getByRole('button', { name: 'Rotate…' }).click();
    await row.getByLabel('Old key keeps working for').selectOption('0');
    await row.getByRole('button', { name: 'Rotate now' }).click();
    const replacement = await page.getByTestId('secret-value').inputValue();
    expect(replacement).toMatch(/^sk_live_/);
    expect(replacement).not.toBe(secret);
    await expect
      .poll(async () => (await api.request('GET', '/v2/account', { key: secret })).status)
      .toBe(401);
    expect((await api.request('GET', '/v2/account', { key: replacement })).status).toBe(200);
    await page.getByRole('button', { name: 'Done' }).click();

    // Revoke the replacement, after confirming; then the API refuses it.
    const active = page.locator(`tr[data-status="active"]`, { hasText: `…${replacement.slice(-4)}` });
    await active.getByRole('button', { name: 'Revoke…' }).click();
    // Keyboard: the confirmation takes the focus on its safe choice; Shift+Tab, Enter revokes.
    await expect
      .poll(() => page.evaluate<string | undefined>('document.activeElement?.textContent'))
      .toBe('Cancel');
    await page.keyboard.press('Shift+Tab');
    await page.keyboard.press('Enter');
    await page.locator('tr[data-status="revoked"]', { hasText: `…${replacement.slice(-4)}` }).waitFor();
    const refused = await api.request<{ error: { code: string } }>('GET', '/v2/account', {
      key: replacement,
    });
    expect(refused.status).toBe(401);
    expect(refused.body.error.code).toBe('invalid_api_key');
    await context.close();
  });

  it('a job submitted through the API reaches completed on its page; its CSV matches the API', {
    timeout: 60_000,
  }, async () => {
    const receiver = await startWebhookReceiver();
    try {
      const records = ['81.2.69.142', '10.0.0.1', '2.125.160.216', '89.160.20.112'];
      const submitted = await api.request<{ id: string }>('POST', '/v2/batch', {
        key: server.liveKey,
        json: { type: 'geo_ip', records, webhook_url: `${receiver.url}/hooks` },
      });
      expect(submitted.status).toBe(202);
      const id = submitted.body.id;
      const { context, page } = await open();
      await signIn(page, server.liveKey);
      await page.goto(`${server.url}/dashboard/#/jobs`);
      await page.locator(`tr[data-job-id="${id}"]`).waitFor();
      await screenshot(page, 'jobs');
      await page.locator(`tr[data-job-id="${id}"] a`).click();
      await expect
        .poll(() => page.getByTestId('job-status').textContent(), { timeout: 20_000 })
        .toBe('completed');

      const [download] = await Promise.all([
        page.waitForEvent('download'),
        page.getByRole('button', { name: 'Download CSV' }).click(),
      ]);
      expect(download.suggestedFilename()).toBe(`${id}.csv`);
      const path = await download.path();
      const fromApi = await api.request('GET', `/v2/batch/${id}/results?format=csv`, { key: server.liveKey });
      expect(await readFile(path, 'utf8')).toBe(fromApi.text);
      expect(fromApi.text.split('\n').filter(Boolean)).toHaveLength(records.length + 1);
      const [ndjson] = await Promise.all([
        page.waitForEvent('download'),
        page.getByRole('button', { name: 'Download NDJSON' }).click(),
      ]);
      const ndjsonFromApi = await api.request('GET', `/v2/batch/${id}/results?format=ndjson`, {
        key: server.liveKey,
      });
      expect(await readFile(await ndjson.path(), 'utf8')).toBe(ndjsonFromApi.text);

      // The completion webhook, delivered once, then resent from the page.
      const event = page.locator('article.event');
      await event.locator('[data-testid="attempt"]').first().waitFor();
      expect(await event.getAttribute('data-state')).toBe('delivered');
      await receiver.waitFor(1, 15_000);
      await event.getByRole('button', { name: /Resend/ }).click();
      await expect.poll(() => event.locator('[data-testid="attempt"]').count()).toBe(2);
      expect(await event.locator('[data-testid="attempt"]').nth(1).textContent()).toContain('resend');
      await receiver.waitFor(2, 15_000);
      await screenshot(page, 'job');
      // The job's records are billed to batch_create on the live key: the usage page says so.
      await page.getByRole('navigation').getByRole('link', { name: 'Usage' }).click();
      await page.locator('[data-testid="usage-lines"] tr[data-endpoint="batch_create"]').waitFor();
      await screenshot(page, 'usage-after-job');
      await context.close();
    } finally {
      await receiver.close();
    }
  });

  it('cancels a running job from its page', { timeout: 60_000 }, async () => {
    const submitted = await api.request<{ id: string }>('POST', '/v2/batch', {
      key: server.liveKey,
      json: { type: 'verify_email', records: SLOW_DOMAINS.map((domain) => `someone@${domain}`) },
    });
    expect(submitted.status).toBe(202);
    const id = submitted.body.id;
    const { context, page } = await open();
    await signIn(page, server.liveKey);
    await page.goto(`${server.url}/dashboard/#/jobs/${id}`);
    await page.getByRole('button', { name: 'Cancel job' }).click();
    await expect.poll(() => page.getByTestId('job-status').textContent()).toBe('cancelled');
    expect(await page.getByRole('button', { name: 'Cancel job' }).count()).toBe(0);
    const job = await api.request<{ status: string; processed: number; total: number }>(
      'GET',
      `/v2/batch/${id}`,
      {
        key: server.liveKey,
      },
    );
    expect(job.body.status).toBe('cancelled');
    expect(job.body.processed).toBeLessThan(job.body.total);
    await context.close();
  });

  it('uploads a list from the page, and sends a test event', async () => {
    const receiver = await startWebhookReceiver();
    try {
      const { context, page } = await open();
      await signIn(page, server.testKey);
      await page.getByRole('navigation').getByRole('link', { name: 'Batch jobs' }).click();
      await page.getByLabel('Job type').selectOption('verify_email');
      await page.getByLabel('CSV column (optional)').fill('email');
      await page.getByLabel('File (CSV or text, one record per line)').setInputFiles({
        name: 'list.csv',
        mimeType: 'text/csv',
        buffer: Buffer.from('name,email\nAda,deliverable@example.com\nBob,undeliverable@example.com\n'),
      });
      await page.getByRole('button', { name: 'Start job' }).click();
      await expect
        .poll(() => page.getByTestId('job-status').textContent(), { timeout: 20_000 })
        .toBe('completed');
      const id = /#\/jobs\/(batch_\w+)/.exec(page.url())?.[1] ?? '';
      const job = await api.request<{ total: number; counts: Record<string, number> }>(
        'GET',
        `/v2/batch/${id}`,
        {
          key: server.testKey,
        },
      );
      expect(job.body.total).toBe(2);

      // A test key's session sees jobs and usage, not keys.
      await page.getByRole('navigation').getByRole('link', { name: 'Keys' }).click();
      expect(await page.getByTestId('keys-need-live').textContent()).toMatch(/needs a live key/);
      await page.getByRole('navigation').getByRole('link', { name: 'Batch jobs' }).click();
      await page.getByLabel('Webhook URL', { exact: true }).fill(`${receiver.url}/test`);
      await page.getByRole('button', { name: 'Send test event' }).click();
      await expect.poll(() => page.getByTestId('test-result').textContent()).toMatch(/^Delivered/);
      const [delivery] = await receiver.waitFor(1, 15_000);
      expect(JSON.parse(delivery?.body.toString('utf8') ?? '{}').type).toBe('webhook.test');
      await context.close();
    } finally {
      await receiver.close();
    }
  });

  it('rotates the webhook secret; the next delivery verifies with the new secret', async () => {
    const receiver = await startWebhookReceiver();
    try {
      const { context, page } = await open();
      await signIn(page, server.liveKey);
      await page.getByRole('link', { name: 'Keys' }).click();
      await page.getByLabel('Old secret keeps signing for').selectOption('0');
      await page.getByRole('button', { name: 'Rotate webhook secret' }).click();
      const secret = await page.getByTestId('secret-value').inputValue();
      expect(secret).toMatch(/^whsec_/);
      await page.getByRole('button', { name: 'Done' }).click();
      await expect
        .poll(() => page.getByTestId('webhook-secrets').textContent())
        .toContain(secret.slice(0, 10));

      const submitted = await api.request<{ id: string }>('POST', '/v2/batch', {
        key: server.liveKey,
        json: { type: 'geo_ip', records: ['81.2.69.142'], webhook_url: `${receiver.url}/after-rotation` },
      });
      expect(submitted.status).toBe(202);
      const [delivery] = await receiver.waitFor(1, 15_000);
      const body = delivery?.body.toString('utf8') ?? '';
      const header = delivery?.headers['x-service-signature'] as string;
      const event = verifyPayload<{ id: string }>(body, header, secret);
      expect(event.data.object.id).toBe(submitted.body.id);
      // With no grace period the first secret signs no more.
      expect(() => verifyPayload(body, header, server.webhookSecret)).toThrow();
      await context.close();
    } finally {
      await receiver.close();
    }
  });

  it('loads nothing from outside the server, and breaks none of its own Content-Security-Policy', () => {
    expect(requested.size).toBeGreaterThan(0);
    const outside = [...requested].filter(
      (url) => !url.startsWith(`${server.url}/`) && !/^(data|blob):/.test(url),
    );
    expect(outside).toEqual([]);
    expect(cspViolations).toEqual([]);
  });
});
