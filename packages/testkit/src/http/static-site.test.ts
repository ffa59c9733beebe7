import { gzipSync } from 'node:zlib';
import { afterEach, describe, expect, it } from 'vitest';
import { type StaticSite, startStaticSite } from './static-site.js';

let site: StaticSite | undefined;
afterEach(async () => {
  await site?.close();
  site = undefined;
});

describe('startStaticSite', () => {
  it('serves status, headers and body per route, and 404 for unknown paths', async () => {
    site = await startStaticSite({
      routes: {
        '/': '<html><script type="application/ld+json">{"@type":"Organization"}</script></html>',
        '/api': { status: 201, headers: { 'X-Fake': 'yes', 'set-cookie': ['a=1', 'b=2'] }, body: '{"a":1}' },
      },
    });
    expect(site.url).toBe(`http://127.0.0.1:${site.port}`);
    expect(site.port).toBeGreaterThan(0);

    const home = await fetch(`${site.url}/`);
    expect(home.status).toBe(200);
    expect(home.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(await home.text()).toContain('"@type":"Organization"');

    const api = await fetch(`${site.url}/api`);
    expect(api.status).toBe(201);
    expect(api.headers.get('x-fake')).toBe('yes');
    expect(api.headers.getSetCookie()).toEqual(['a=1', 'b=2']);
    expect(await api.text()).toBe('{"a":1}');

    const missing = await fetch(`${site.url}/nope`);
    expect(missing.status).toBe(404);
    expect(await missing.text()).toBe('Not Found');
  });

  it('serves binary downloads byte for byte with a type from the extension', async () => {
    const archive = gzipSync(Buffer.from('ip,country\n1.2.3.4,DE\n'));
    site = await startStaticSite({ routes: { '/data/db.tar.gz': archive, '/data/list.csv': 'a,b\n' } });
    const res = await fetch(`${site.url}/data/db.tar.gz`);
    expect(res.headers.get('content-type')).toBe('application/gzip');
    expect(res.headers.get('content-length')).toBe(String(archive.byteLength));
    expect(Buffer.from(await res.arrayBuffer()).equals(archive)).toBe(true);
    const csv = await fetch(`${site.url}/data/list.csv`);
    expect(csv.headers.get('content-type')).toBe('text/csv; charset=utf-8');
  });

  it('answers redirects without following them under redirect: manual', async () => {
    site = await startStaticSite({
      routes: { '/old': { status: 301, headers: { location: '/new' } }, '/new': 'moved here' },
    });
    const res = await fetch(`${site.url}/old`, { redirect: 'manual' });
    expect(res.status).toBe(301);
    expect(res.headers.get('location')).toBe('/new');
    expect(site.requests.map((r) => r.path)).toEqual(['/old']);
    const followed = await fetch(`${site.url}/old`);
    expect(await followed.text()).toBe('moved here');
    expect(site.requests.map((r) => r.path)).toEqual(['/old', '/old', '/new']);
  });

  it('delays a route by delayMs and not the others', async () => {
    const delaying = await startStaticSite({
      routes: { '/slow': { body: 'late', delayMs: 250 }, '/fast': 'now' },
    });
    site = delaying;
    const started = performance.now();
    const answered: string[] = [];
    const ask = async (path: string) => answered.push(await (await fetch(`${delaying.url}${path}`)).text());
    // Asked together, the undelayed route answers first (order, not a time bound, shows it).
    await Promise.all([ask('/slow'), ask('/fast')]);
    expect(answered).toEqual(['now', 'late']);
    expect(performance.now() - started).toBeGreaterThanOrEqual(240);
  });

  it('records method, path with query, headers, body and time of every request', async () => {
    site = await startStaticSite({ routes: { '/form': 'ok', '/q?page=2': 'page two' } });
    const before = Date.now();
    await fetch(`${site.url}/form?x=1`, { method: 'POST', headers: { 'x-trace': 't1' }, body: 'a=b' });
    expect(await (await fetch(`${site.url}/q?page=2`)).text()).toBe('page two');
    expect(await (await fetch(`${site.url}/q?page=3`)).text()).toBe('Not Found');
    const [first] = site.requests;
    expect(site.requests).toHaveLength(3);
    expect(first?.method).toBe('POST');
    expect(first?.path).toBe('/form?x=1');
    expect(first?.headers['x-trace']).toBe('t1');
    expect(first?.body.toString()).toBe('a=b');
    expect(first?.at).toBeGreaterThanOrEqual(before);
  });

  it('replaces and deletes routes at runtime', async () => {
    site = await startStaticSite({ routes: { '/': 'v1' } });
    expect(await (await fetch(site.url)).text()).toBe('v1');
    site.setRoute('/', { status: 503, body: 'maintenance' });
    site.setRoute('/added', 'new');
    const down = await fetch(site.url);
    expect([down.status, await down.text()]).toEqual([503, 'maintenance']);
    expect(await (await fetch(`${site.url}/added`)).text()).toBe('new');
    site.deleteRoute('/added');
    expect((await fetch(`${site.url}/added`)).status).toBe(404);
  });

  it('listens on another 127.x address when asked', async () => {
    site = await startStaticSite({ host: '127.0.0.2', routes: { '/': 'hi' } });
    expect(site.url).toBe(`http://127.0.0.2:${site.port}`);
    expect(await (await fetch(site.url)).text()).toBe('hi');
  });

  it('closes promptly with a slow request open, and twice', async () => {
    site = await startStaticSite({ routes: { '/slow': { body: 'x', delayMs: 60_000 } } });
    const pending = fetch(`${site.url}/slow`).then(
      () => 'answered',
      () => 'failed',
    );
    while (site.requests.length === 0) await new Promise((r) => setTimeout(r, 5));
    // The route answers after a minute, past the test's timeout: close() returning shows it did
    // not wait for it (not timed).
    await Promise.all([site.close(), site.close()]);
    expect(await pending).toBe('failed');
  });

  it('rejects invalid options and routes with a TypeError naming the field', async () => {
    await expect(startStaticSite({ host: '0.0.0.0' })).rejects.toThrow(
      /startStaticSite: options.host must be a 127.x.y.z loopback address, got "0.0.0.0"/,
    );
    await expect(startStaticSite({ host: 'localhost' })).rejects.toThrow(TypeError);
    await expect(startStaticSite({ port: -1 })).rejects.toThrow(/options.port must be an integer 0..65535/);
    await expect(startStaticSite({ routes: { nope: 'x' } })).rejects.toThrow(
      /path "nope" must start with '\/'/,
    );
    await expect(startStaticSite({ routes: { '/r': { status: 302 } } })).rejects.toThrow(
      /routes\["\/r"\] has the redirect status 302 but no 'location' header/,
    );
    await expect(startStaticSite({ routes: { '/r': { status: 99 } } })).rejects.toThrow(
      /status must be an integer/,
    );
    await expect(startStaticSite({ routes: { '/r': { body: 'x', delay: 5 } as never } })).rejects.toThrow(
      /unknown field 'delay'/,
    );
    await expect(
      startStaticSite({ routes: { '/r': { headers: { 'x-bad': 'a\r\nInjected: 1' } } } }),
    ).rejects.toThrow(/headers\["x-bad"\] is not a valid header/);
    site = await startStaticSite();
    expect(() => site?.setRoute('/x', { delayMs: -5 })).toThrow(
      /StaticSite.setRoute: route\["\/x"\].delayMs must be a finite number of milliseconds >= 0/,
    );
  });
});
