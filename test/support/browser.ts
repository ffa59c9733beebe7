import { existsSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { skipWithout } from '@svc/testkit';
import { type Browser, chromium, type Page } from 'playwright-core';

/** Debian's Chromium (CI installs it and sets SVC_CHROMIUM); no browser is downloaded. */
export const CHROMIUM = process.env.SVC_CHROMIUM ?? '/usr/bin/chromium';

/** True when the browser tests must skip (a visible message; a failure under SVC_REQUIRE_EXTERNAL). */
export const noChromium = skipWithout({
  name: 'chromium',
  available: existsSync(CHROMIUM),
  howToGet: 'apt-get install chromium (or point SVC_CHROMIUM at a Chromium binary)',
  what: "the dashboard's browser tests",
});

/** Screenshots of each page, kept as test artifacts (gitignored), not committed. */
export const ARTIFACTS = fileURLToPath(new URL('../artifacts/dashboard/', import.meta.url));

/** The dashboard's build, which `svc serve` serves at /dashboard (written by `pnpm build`). */
export const DASHBOARD_BUILD = fileURLToPath(
  new URL('../../packages/server/dashboard/index.html', import.meta.url),
);

/** Headless Chromium that talks to nothing but the pages it is sent to. */
export async function launchChromium(): Promise<Browser> {
  if (!existsSync(DASHBOARD_BUILD)) {
    throw new Error(
      `the dashboard is not built (${DASHBOARD_BUILD} is missing): run \`pnpm build\` (or \`pnpm --filter @svc/dashboard build\`) first`,
    );
  }
  await mkdir(ARTIFACTS, { recursive: true });
  return chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: [
      '--no-sandbox',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-default-apps',
      '--disable-sync',
      '--disable-domain-reliability',
      '--disable-client-side-phishing-detection',
      '--disable-features=Translate,OptimizationHints,MediaRouter,AutofillServerCommunication',
      '--metrics-recording-only',
      '--no-first-run',
      '--no-pings',
    ],
  });
}

/** Saves a full-page screenshot under test/artifacts/dashboard/. */
export async function screenshot(page: Page, name: string): Promise<void> {
  await page.screenshot({ path: `${ARTIFACTS}${name}.png`, fullPage: true });
}
