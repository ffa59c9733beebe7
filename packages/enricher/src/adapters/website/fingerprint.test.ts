import { describe, expect, it } from 'vitest';
import { extractPage } from './extract.js';
import {
  builtInFingerprints,
  createFingerprintMatcher,
  detectTechnologies,
  type SiteSignals,
} from './fingerprint.js';

const none: SiteSignals = { headers: {}, cookies: [], scripts: [], urls: [], meta: {}, inline: [] };

describe('fingerprints.json', () => {
  it('holds at least 100 uniquely named technologies across the B2B categories', () => {
    expect(builtInFingerprints.length).toBeGreaterThanOrEqual(100);
    expect(new Set(builtInFingerprints.map((f) => f.name)).size).toBe(builtInFingerprints.length);
    const categories = new Set(builtInFingerprints.map((f) => f.category));
    for (const c of [
      'crm',
      'marketing_automation',
      'analytics',
      'chat',
      'cms',
      'ecommerce',
      'cdn',
      'email',
    ]) {
      expect(categories).toContain(c);
    }
    // Every pattern compiles (a broken one would throw here, naming its entry).
    expect(() => createFingerprintMatcher(builtInFingerprints)).not.toThrow();
  });

  it('matches on headers, cookies, script src, resource URLs, meta and inline scripts', () => {
    const page = extractPage(
      `<meta name="generator" content="WordPress 6.5">
       <script src="https://js.hs-scripts.com/123.js"></script>
       <link rel="stylesheet" href="https://fonts.googleapis.com/css2?family=Inter">
       <script>(function(w,d,s,l,i){ j.src='https://www.googletagmanager.com/gtm.js?id='+i; })()</script>`,
      'https://acme.test/',
    );
    const found = detectTechnologies({
      headers: { server: 'cloudflare', 'cf-ray': '1-FRA', 'x-powered-by': 'PHP/8.2' },
      cookies: ['_shopify_y', 'intercom-id-abc'],
      scripts: page.scripts,
      urls: page.urls,
      meta: page.meta,
      inline: page.inline,
    }).map((t) => t.name);
    expect(found).toEqual(
      expect.arrayContaining([
        'WordPress',
        'HubSpot',
        'Google Fonts',
        'Google Tag Manager',
        'Cloudflare',
        'PHP',
        'Shopify',
        'Intercom',
      ]),
    );
    expect(found).toHaveLength(8);
  });

  it('finds nothing on a page without signals, and a near-miss does not count', () => {
    expect(detectTechnologies(none)).toEqual([]);
    expect(detectTechnologies({ ...none, scripts: ['https://acme.test/js/hubspot-notes.js'] })).toEqual([]);
  });

  it('rejects a malformed entry with a TypeError naming it', () => {
    expect(() => createFingerprintMatcher([{ name: 'Bad', category: 'x', scripts: ['(('] }])).toThrow(
      /fingerprint "Bad"/,
    );
  });
});
