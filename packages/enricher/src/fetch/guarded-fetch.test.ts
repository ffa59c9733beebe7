import { type StaticRoute, type StaticSite, startStaticSite } from '@svc/testkit';
import { afterEach, describe, expect, it } from 'vitest';
import { createGuardedFetch, DEFAULT_USER_AGENT } from './guarded-fetch.js';

const sites: StaticSite[] = [];
afterEach(async () => {
  await Promise.all(sites.splice(0).map((site) => site.close()));
});
async function site(routes: Record<string, StaticRoute>, host = '127.0.0.1') {
  const started = await startStaticSite({ routes, host });
  sites.push(started);
  return started;
}
const onlyLoopback1 = (ip: string) => ip === '127.0.0.1';

describe('createGuardedFetch', () => {
  it('refuses loopback by default, as an IP literal and as a name resolving to it, before any request', async () => {
    const web = await site({ '/': 'hi' });
    const guarded = createGuardedFetch({ lookup: async () => [{ address: '127.0.0.1', family: 4 }] });
    await expect(guarded(`${web.url}/`)).rejects.toMatchObject({ code: 'ESSRF' });
    await expect(guarded(`http://acme.test:${web.port}/`)).rejects.toMatchObject({ code: 'ESSRF' });
    await expect(guarded('file:///etc/passwd')).rejects.toMatchObject({ code: 'EPROTOCOL' });
    // Other spellings of internal addresses: IPv6 loopback, a decimal IPv4, cloud metadata.
    await expect(guarded(`http://[::1]:${web.port}/`)).rejects.toMatchObject({ code: 'ESSRF' });
    await expect(guarded(`http://2130706433:${web.port}/`)).rejects.toMatchObject({ code: 'ESSRF' });
    await expect(guarded('http://169.254.169.254/latest/meta-data')).rejects.toMatchObject({ code: 'ESSRF' });
    // One private answer among public ones refuses the name (no picking the good one).
    const mixed = createGuardedFetch({
      lookup: async () => [
        { address: '93.184.216.34', family: 4 },
        { address: '10.0.0.5', family: 4 },
      ],
    });
    await expect(mixed('http://mixed.example/')).rejects.toMatchObject({ code: 'ESSRF' });
    expect(web.requests).toHaveLength(0);
  });

  it('fetches an allowed target with the project User-Agent and reports the final URL', async () => {
    const web = await site({ '/a': { status: 301, headers: { location: '/b' } }, '/b': 'landed' });
    const guarded = createGuardedFetch({ isAllowedAddress: onlyLoopback1 });
    const response = await guarded(`${web.url}/a`);
    expect(await response.text()).toBe('landed');
    expect(response.url).toBe(`${web.url}/b`);
    expect(response.redirected).toBe(true);
    expect(web.requests.map((r) => r.headers['user-agent'])).toEqual([
      DEFAULT_USER_AGENT,
      DEFAULT_USER_AGENT,
    ]);
  });

  it('re-checks every redirect target: a hop to a refused address fails', async () => {
    const inner = await site({ '/': 'secret' }, '127.0.0.2');
    const web = await site({ '/': { status: 302, headers: { location: `${inner.url}/` } } });
    const guarded = createGuardedFetch({ isAllowedAddress: onlyLoopback1 });
    await expect(guarded(`${web.url}/`)).rejects.toMatchObject({ code: 'ESSRF' });
    expect(inner.requests).toHaveLength(0);
  });

  it('follows at most 3 redirects', async () => {
    const web = await site({
      '/1': { status: 302, headers: { location: '/2' } },
      '/2': { status: 302, headers: { location: '/3' } },
      '/3': { status: 302, headers: { location: '/4' } },
      '/4': { status: 302, headers: { location: '/5' } },
      '/5': 'too far',
    });
    const guarded = createGuardedFetch({ isAllowedAddress: onlyLoopback1 });
    expect(await (await guarded(`${web.url}/2`)).text()).toBe('too far');
    await expect(guarded(`${web.url}/1`)).rejects.toMatchObject({ code: 'EREDIRECTS' });
  });

  it('caps the body size and the time, and honours the abort signal', async () => {
    const web = await site({ '/big': 'x'.repeat(5000), '/slow': { delayMs: 2000, body: 'late' } });
    const guarded = createGuardedFetch({ isAllowedAddress: onlyLoopback1, maxBytes: 1000, timeoutMs: 200 });
    await expect(guarded(`${web.url}/big`)).rejects.toMatchObject({ code: 'ETOOLARGE' });
    // The answer comes after 2 s: ETIMEDOUT says the 200 ms limit ended the wait (no timing asserted).
    await expect(guarded(`${web.url}/slow`)).rejects.toMatchObject({ code: 'ETIMEDOUT' });
    const controller = new AbortController();
    const asked = web.requests.length;
    const pending = createGuardedFetch({ isAllowedAddress: onlyLoopback1 })(`${web.url}/slow`, {
      signal: controller.signal,
    });
    // The caller gives up once the site has the request (it answers 2 s later).
    await expect.poll(() => web.requests.length).toBe(asked + 1);
    controller.abort(new Error('caller gave up'));
    await expect(pending).rejects.toThrow('caller gave up');
  });
});
