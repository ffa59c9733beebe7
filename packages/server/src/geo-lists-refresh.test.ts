import { readFile } from 'node:fs/promises';
import { updatedListsPath } from '@svc/geo-resolver';
import { type StaticSite, startStaticSite } from '@svc/testkit';
import { sharedTempDir } from '@svc/testkit/vitest';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { scheduleNetworkListRefresh } from './geo-lists-refresh.js';

describe('the scheduled network-list refresh', () => {
  let site: StaticSite;
  const cacheDir = sharedTempDir('svc-lists-refresh-');
  beforeAll(async () => {
    const tor = await readFile(
      new URL('../../geo-resolver/data/network-lists/tor-exits.txt', import.meta.url),
      'utf8',
    );
    site = await startStaticSite({
      routes: { '/tor': { body: `${tor}203.0.114.5\n`, headers: { 'content-type': 'text/plain' } } },
    });
  });
  afterEach(() => vi.useRealTimers());
  afterAll(async () => {
    await site.close();
  });

  it('does nothing at 0', () => {
    const report = vi.fn();
    scheduleNetworkListRefresh({ cacheDir: cacheDir(), intervalSeconds: 0, report })();
    expect(report).not.toHaveBeenCalled();
  });

  it('fetches on its schedule through the guard and installs the checked list', async () => {
    vi.useFakeTimers({ toFake: ['setInterval', 'clearInterval'] });
    const reports: Array<[string, boolean]> = [];
    const done = new Promise<void>((resolve) => {
      const stop = scheduleNetworkListRefresh({
        cacheDir: cacheDir(),
        intervalSeconds: 3600,
        urls: { 'tor-exits': [`${site.url}/tor`] },
        isAllowedAddress: (ip) => ip.startsWith('127.'),
        report: (message, failed) => {
          reports.push([message, failed]);
          stop();
          resolve();
        },
      });
    });
    vi.advanceTimersByTime(3600 * 1000);
    await done;
    expect(reports).toEqual([
      [expect.stringMatching(/^network list tor-exits updated: \d+ networks/), false],
    ]);
    expect((await readFile(updatedListsPath(cacheDir()))).length).toBeGreaterThan(0);
  });

  it('refuses a private address without the test allowance, keeping the data', async () => {
    vi.useFakeTimers({ toFake: ['setInterval', 'clearInterval'] });
    const done = new Promise<[string, boolean]>((resolve) => {
      const stop = scheduleNetworkListRefresh({
        cacheDir: cacheDir(),
        intervalSeconds: 60,
        urls: { 'tor-exits': [`${site.url}/tor`] },
        report: (message, failed) => {
          stop();
          resolve([message, failed]);
        },
      });
    });
    vi.advanceTimersByTime(60_000);
    const [message, failed] = await done;
    expect(failed).toBe(true);
    expect(message).toMatch(/tor-exits kept .*private or reserved/);
  });
});
