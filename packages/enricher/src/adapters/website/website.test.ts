import { type StaticSite, type StaticSiteOptions, startStaticSite } from '@svc/testkit';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { AdapterContext, CompanyQuery, LookupOutcome } from '../../adapter.js';
import { createGuardedFetch } from '../../fetch/guarded-fetch.js';
import { describeAdapter } from '../../testing/describe-adapter.js';
import { createWebsiteAdapter, type WebsiteAdapterOptions } from './website.js';

// Every *.test name resolves to the loopback site; the guard allows only 127.0.0.1, as it would a public IP.
const guarded = createGuardedFetch({
  lookup: async () => [{ address: '127.0.0.1', family: 4 }],
  isAllowedAddress: (ip) => ip === '127.0.0.1',
});

const HOME = `<!doctype html><html><head><title>Acme | Widgets</title>
<meta name="description" content="Industrial widgets.">
<script type="application/ld+json">{"@context":"https://schema.org","@type":"Organization","name":"Acme Widgets",
 "url":"https://acme.test","logo":"https://acme.test/logo.svg","sameAs":["https://www.linkedin.com/company/acme"]}</script>
<script src="https://js.hs-scripts.com/42.js"></script>
</head><body><a href="/about-us">About us</a> <a href="/team">Team</a> <a href="/impressum">Impressum</a></body></html>`;
const ABOUT =
  '<html><body><h1>About</h1><p>Acme was founded in 1998 in Leipzig.</p><p>Today we have 320 employees.</p></body></html>';
const TEAM = `<html><head><script type="application/ld+json">[{"@type":"Person","name":"Jane Roe","jobTitle":"CEO"}]</script>
<script src="https://widget.intercom.io/widget/abc"></script></head><body>Team</body></html>`;

const sites: StaticSite[] = [];
async function site(routes: NonNullable<StaticSiteOptions['routes']>): Promise<StaticSite> {
  const started = await startStaticSite({ routes });
  sites.push(started);
  return started;
}
afterEach(async () => {
  await Promise.all(sites.splice(0).map((s) => s.close()));
});

function adapterFor(target: StaticSite, options: WebsiteAdapterOptions = {}) {
  return createWebsiteAdapter({ homepageUrls: (domain) => [`http://${domain}:${target.port}/`], ...options });
}

function context(fetchFn: typeof fetch = guarded, signal = new AbortController().signal): AdapterContext {
  const refuse = () => Promise.reject(new Error('no DNS in this test'));
  return { signal, fetch: fetchFn, dns: { resolveMx: refuse, resolveTxt: refuse }, now: Date.now };
}

const acme: CompanyQuery = { by: 'domain', domain: 'acme.test' };
const paths = (s: StaticSite) => s.requests.map((r) => r.path);

describe('website adapter on a testkit site', () => {
  it('reads the homepage and its about/team/imprint pages: JSON-LD, text, fingerprints in headers, cookies and scripts', async () => {
    const s = await site({
      '/': {
        body: HOME,
        headers: {
          'content-type': 'text/html; charset=utf-8',
          server: 'cloudflare',
          'cf-ray': '8a-FRA',
          'set-cookie': ['hubspotutk=abc; Path=/', '_ga=GA1.1.1; Path=/'],
        },
      },
      '/robots.txt': 'User-agent: *\nDisallow: /admin\n',
      '/about-us': ABOUT,
      '/team': TEAM,
      // /impressum is linked but missing: a 404 subpage costs nothing
    });
    const outcome = await adapterFor(s).lookup(acme, context());
    expect(outcome.type).toBe('hit');
    if (outcome.type !== 'hit') return;
    const [candidate] = outcome.candidates;
    expect(candidate?.fields).toMatchObject({
      domain: 'acme.test',
      name: 'Acme Widgets',
      description: 'Industrial widgets.',
      founded: 1998,
      employee_count: 320,
      logo: 'https://acme.test/logo.svg',
      social: { linkedin: 'https://www.linkedin.com/company/acme' },
    });
    expect(candidate?.fields.technologies?.sort()).toEqual([
      'Cloudflare',
      'Google Analytics',
      'HubSpot',
      'Intercom',
    ]);
    expect(candidate?.confidence).toBe(0.9);
    expect(outcome.cost).toBe(0);
    expect(paths(s)[0]).toBe('/robots.txt');
    expect(paths(s).sort()).toEqual(['/', '/about-us', '/impressum', '/robots.txt', '/team']);
    // The guarded fetch names the project to the site.
    expect(s.requests[1]?.headers['user-agent']).toMatch(/^svc-enricher\//);
  });

  it('obeys robots.txt: a site disallowing us entirely is a miss with only robots.txt fetched', async () => {
    const s = await site({
      '/': HOME,
      '/robots.txt': 'User-agent: svc-enricher\nDisallow: /\n\nUser-agent: *\nAllow: /',
    });
    expect((await adapterFor(s).lookup(acme, context())).type).toBe('miss');
    expect(paths(s)).toEqual(['/robots.txt']);
  });

  it('skips disallowed subpages; an unavailable robots.txt (5xx, timeout) stops the lookup with a typed error', async () => {
    const s = await site({
      '/': HOME,
      '/robots.txt': 'User-agent: *\nDisallow: /team',
      '/about-us': ABOUT,
      '/team': TEAM,
    });
    const adapter = adapterFor(s);
    const outcome = await adapter.lookup(acme, context());
    expect(outcome.type).toBe('hit');
    expect(paths(s)).not.toContain('/team');
    // robots.txt is fetched once per origin and reused by the next lookup.
    await adapter.lookup(acme, context());
    expect(paths(s).filter((p) => p === '/robots.txt')).toHaveLength(1);

    // An unavailable robots.txt means fetch nothing (RFC 9309); the lookup says why, and is not a cached miss.
    const down = await site({ '/': HOME, '/robots.txt': { status: 503, body: 'busy' } });
    const busy = adapterFor(down);
    expect(await busy.lookup(acme, context())).toMatchObject({
      type: 'error',
      error: { kind: 'upstream', status: 503 },
    });
    expect(paths(down)).toEqual(['/robots.txt']);
    down.setRoute('/robots.txt', { body: 'slow', delayMs: 1000 });
    expect(await adapterFor(down, { timeoutMs: 100 }).lookup(acme, context())).toMatchObject({
      type: 'error',
      error: { kind: 'timeout' },
    });
    // Once robots.txt answers again, the same adapter reads it afresh rather than remembering the failure.
    down.setRoute('/robots.txt', 'User-agent: *\nAllow: /');
    expect((await busy.lookup(acme, context())).type).toBe('hit');
  });

  it('answers a timeout error for a slow homepage, promptly', async () => {
    const s = await site({ '/': { body: HOME, delayMs: 2000 } });
    // The homepage answers after 2 s: a timeout error says the 150 ms limit ended the wait.
    const outcome = await adapterFor(s, { timeoutMs: 150 }).lookup(acme, context());
    expect(outcome).toMatchObject({ type: 'error', error: { kind: 'timeout' } });
  });

  it('reads only the head of a long page, and a page over the guard cap is a miss', async () => {
    const padded = HOME.replace('</body>', `<p>${'x'.repeat(200_000)}</p></body>`);
    const s = await site({ '/': padded, '/huge': 'y' });
    const outcome = await adapterFor(s, { maxBytes: 4096, maxSubpages: 0 }).lookup(acme, context());
    expect(outcome.type === 'hit' && outcome.candidates[0]?.fields.name).toBe('Acme Widgets');

    s.setRoute('/', `<title>Huge</title>${'z'.repeat(3 * 1024 * 1024)}`);
    const small = createGuardedFetch({
      lookup: async () => [{ address: '127.0.0.1', family: 4 }],
      isAllowedAddress: () => true,
    });
    expect((await adapterFor(s).lookup(acme, context(small))).type).toBe('miss');
  });

  it('stops a redirect loop after maxRedirects and follows a short redirect chain', async () => {
    const s = await site({
      '/': { status: 301, headers: { location: '/a' } },
      '/a': { status: 302, headers: { location: '/' } },
    });
    expect((await adapterFor(s).lookup(acme, context())).type).toBe('miss');
    expect(paths(s).filter((p) => p !== '/robots.txt')).toHaveLength(4); // the page and 3 redirects, no more

    const ok = await site({ '/': { status: 301, headers: { location: '/en/' } }, '/en/': HOME });
    const outcome = await adapterFor(ok, { maxSubpages: 0 }).lookup(acme, context());
    expect(outcome.type === 'hit' && outcome.candidates[0]?.fields.name).toBe('Acme Widgets');
  });

  it('is a miss when the homepage redirects to another registrable domain (a parked domain), but follows www.', async () => {
    const s = await site({ '/forsale': '<title>Buy this domain | Marketplace</title>' });
    s.setRoute('/', { status: 302, headers: { location: `http://parking.test:${s.port}/forsale` } });
    expect((await adapterFor(s).lookup(acme, context())).type).toBe('miss');

    s.setRoute('/', { status: 301, headers: { location: `http://www.acme.test:${s.port}/home` } });
    s.setRoute('/home', HOME);
    const outcome = await adapterFor(s, { maxSubpages: 0 }).lookup(acme, context());
    expect(outcome.type === 'hit' && outcome.candidates[0]?.fields.name).toBe('Acme Widgets');
  });

  it('does not follow a redirect into a robots-disallowed path', async () => {
    const s = await site({
      '/': { status: 302, headers: { location: '/private/home' } },
      '/private/home': HOME,
      '/robots.txt': 'User-agent: *\nDisallow: /private',
    });
    expect((await adapterFor(s).lookup(acme, context())).type).toBe('miss');
    expect(paths(s)).not.toContain('/private/home');
  });

  it('treats a non-HTML homepage as a miss', async () => {
    const s = await site({ '/': { body: '%PDF-1.7', headers: { 'content-type': 'application/pdf' } } });
    expect((await adapterFor(s).lookup(acme, context())).type).toBe('miss');
  });

  it('decodes a page whose header says UTF-8 but whose bytes are Latin-1, and a page declaring its charset in meta', async () => {
    const latin1 = Buffer.from('<title>Müller &amp; Söhne | Start</title>', 'latin1');
    const s = await site({ '/': { body: latin1, headers: { 'content-type': 'text/html; charset=utf-8' } } });
    const outcome = await adapterFor(s).lookup(acme, context());
    expect(outcome.type === 'hit' && outcome.candidates[0]?.fields.name).toBe('Müller & Söhne');

    s.setRoute('/', {
      body: Buffer.from('<meta charset="iso-8859-1"><title>Café Größe | x</title>', 'latin1'),
      headers: { 'content-type': 'text/html' },
    });
    const again = await adapterFor(s).lookup(acme, context());
    expect(again.type === 'hit' && again.candidates[0]?.fields.name).toBe('Café Größe');
  });

  it('answers typed errors for 5xx and 429 (with retry-after) and a miss for 404', async () => {
    const s = await site({ '/': { status: 503, body: 'down' } });
    expect(await adapterFor(s).lookup(acme, context())).toMatchObject({
      type: 'error',
      error: { kind: 'upstream', status: 503 },
    });
    s.setRoute('/', { status: 429, headers: { 'retry-after': '30' }, body: 'slow down' });
    expect(await adapterFor(s).lookup(acme, context())).toMatchObject({
      type: 'error',
      error: { kind: 'rate_limited', retryAfterSeconds: 30 },
    });
    s.setRoute('/', { status: 404, body: 'gone' });
    expect((await adapterFor(s).lookup(acme, context())).type).toBe('miss');
  });

  it('keeps at most perHostConcurrency requests in flight to one host', async () => {
    const slow = (body: string) => ({ body, delayMs: 80 });
    const links = ['about', 'team', 'contact', 'impressum'].map((p) => `<a href="/${p}">${p}</a>`).join('');
    const s = await site({
      '/': `<title>Acme | x</title>${links}`,
      '/about': slow(ABOUT),
      '/team': slow(TEAM),
      '/contact': slow('<p>c</p>'),
      '/impressum': slow('<p>i</p>'),
    });
    let inFlight = 0;
    let peak = 0;
    const counting = () =>
      (async (input: Parameters<typeof fetch>[0], init?: RequestInit) => {
        peak = Math.max(peak, ++inFlight);
        try {
          return await guarded(input, init);
        } finally {
          inFlight--;
        }
      }) as typeof fetch;
    const adapter = adapterFor(s, { perHostConcurrency: 2 });
    // Two lookups at once on the same host share the limit. (Each has its own fetch, as two
    // enrichers with different guards would, so they do not share one crawl.)
    const outcomes: LookupOutcome<'company'>[] = await Promise.all([
      adapter.lookup(acme, context(counting())),
      adapter.lookup(acme, context(counting())),
    ]);
    expect(outcomes.map((o) => o.type)).toEqual(['hit', 'hit']);
    expect(peak).toBe(2);
    expect(paths(s).filter((p) => p === '/about')).toHaveLength(2);
  });

  it('starts a page deadline when its request starts, not while it waits for the host', async () => {
    const links = ['about', 'team', 'contact', 'impressum'].map((p) => `<a href="/${p}">${p}</a>`).join('');
    const s = await site({
      '/': `<title>Acme | x</title>${links}`,
      '/about': { body: ABOUT, delayMs: 100 },
      '/team': { body: TEAM, delayMs: 100 },
      '/contact': { body: '<p>c</p>', delayMs: 100 },
      '/impressum': { body: '<p>i</p>', delayMs: 100 },
    });
    // One request at a time, 100 ms each: the last subpage waits 300 ms, longer than its 250 ms deadline.
    const outcome = await adapterFor(s, { perHostConcurrency: 1, timeoutMs: 250 }).lookup(acme, context());
    expect(outcome.type === 'hit' && outcome.candidates[0]?.fields).toMatchObject({ founded: 1998 });
    expect(outcome.type === 'hit' && outcome.candidates[0]?.fields.technologies).toEqual(['Intercom']);
    expect(paths(s).filter((p) => p !== '/robots.txt')).toHaveLength(5);
  });

  it('rejects bad options with a TypeError naming the field', () => {
    expect(() => createWebsiteAdapter({ perHostConcurrency: -1 })).toThrow(/perHostConcurrency/);
    expect(() => createWebsiteAdapter({ timeoutMs: 1.5 })).toThrow(/timeoutMs/);
  });
});

// The shared conformance suite, on a site started once for it.
let conformanceSite: StaticSite;
let failingSite: StaticSite;
beforeAll(async () => {
  // Declares its language, so the conformance suite sees the `language` field too.
  const home = HOME.replace('<html>', '<html lang="en">');
  conformanceSite = await startStaticSite({ routes: { '/': home, '/about-us': ABOUT } });
  failingSite = await startStaticSite({ routes: { '/': { status: 500, body: 'oops' } } });
});
afterAll(async () => {
  await Promise.all([conformanceSite.close(), failingSite.close()]);
});

describeAdapter('website', {
  create: () =>
    createWebsiteAdapter({
      homepageUrls: (domain) => {
        // acme.test is the live site, down.test answers 500, anything else has no web server (a closed port).
        const port =
          domain === 'acme.test' ? conformanceSite.port : domain === 'down.test' ? failingSite.port : 9;
        return [`http://${domain}:${port}/`];
      },
    }),
  hits: [acme],
  misses: [{ by: 'domain', domain: 'nosite.test' }],
  context: () => ({ fetch: guarded }),
  upstreamFailure: {
    query: { by: 'domain', domain: 'down.test' },
    context: () => ({ fetch: guarded }),
    kind: 'upstream',
  },
});
