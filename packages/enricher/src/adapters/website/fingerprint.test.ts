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

  const signalsOf = (html: string, url = 'https://acme.test/'): SiteSignals => {
    const page = extractPage(html, url);
    return {
      headers: {},
      cookies: [],
      scripts: page.scripts,
      urls: page.urls,
      meta: page.meta,
      inline: page.inline,
    };
  };
  const names = (html: string, domain?: string) =>
    detectTechnologies(signalsOf(html), domain).map((t) => t.name);

  it('finds the noscript fallbacks of tracking pixels', () => {
    const html = `<noscript><img height="1" width="1" src="https://www.facebook.com/tr?id=1&ev=PageView&noscript=1"/></noscript>
      <noscript><img src="https://px.ads.linkedin.com/collect/?pid=1&fmt=gif"></noscript>
      <noscript><img src="https://analytics.twitter.com/i/adsct?txn_id=x"></noscript>
      <noscript><img src="https://bat.bing.com/action/0?ti=1&Ver=2"></noscript>
      <noscript><p><img src="https://stats.acme.test/matomo.php?idsite=3&rec=1"></p></noscript>
      <noscript><img src="https://sb.scorecardresearch.com/p?c1=2&c2=1"></noscript>
      <noscript><iframe src="https://www.googletagmanager.com/ns.html?id=GTM-X"></iframe></noscript>`;
    expect(names(html).sort()).toEqual(
      [
        'Meta Pixel',
        'LinkedIn Insight Tag',
        'X Ads',
        'Microsoft Advertising UET',
        'Matomo',
        'comScore',
        'Google Tag Manager',
      ].sort(),
    );
  });

  it('finds iframe-only widgets (also lazy ones), icon-font CDNs and legacy analytics loaders', () => {
    const html = `<iframe data-src="https://www.google.com/maps/embed?pb=!1m18"></iframe>
      <iframe src="https://open.spotify.com/embed/playlist/x"></iframe>
      <iframe src="https://www.facebook.com/plugins/page.php?href=x"></iframe>
      <link rel="stylesheet" href="https://maxcdn.bootstrapcdn.com/font-awesome/4.7.0/css/font-awesome.min.css">
      <link rel="stylesheet" href="https://fonts.googleapis.com/icon?family=Material+Icons">
      <script>var _gaq = _gaq || []; _gaq.push(['_setAccount', 'UA-1-1']);
        (function() { var ga = document.createElement('script');
        ga.src = ('https:' == document.location.protocol ? 'https://ssl' : 'http://www') + '.google-analytics.com/ga.js'; })();</script>`;
    expect(names(html).sort()).toEqual(
      [
        'Google Maps',
        'Spotify Embed',
        'Facebook Social Plugins',
        'Font Awesome',
        'Material Icons',
        'Google Fonts',
        'Google Analytics',
      ].sort(),
    );
  });

  it('never reports a technology from a file name alone', () => {
    const html = `<script src="/js/jquery.min.js"></script><script src="/assets/bootstrap.bundle.min.js"></script>
      <link rel="stylesheet" href="/css/bootstrap.min.css"><script src="/vendor/matomo.js"></script>
      <script src="/static/optanon-settings.js"></script>`;
    expect(names(html)).toEqual([]);
    // The same libraries from their CDNs are evidence.
    expect(
      names(
        '<script src="https://code.jquery.com/jquery-3.7.1.min.js"></script><script src="https://cdn.jsdelivr.net/npm/bootstrap@5.3.3/dist/js/bootstrap.min.js"></script>',
      ),
    ).toEqual(expect.arrayContaining(['jQuery', 'Bootstrap']));
  });

  it("never reports a technology on the vendor's own site", () => {
    const html =
      '<script src="https://js.hs-scripts.com/1.js"></script><script src="https://js.stripe.com/v3"></script>';
    expect(names(html, 'acme.com').sort()).toEqual(['HubSpot', 'Stripe']);
    expect(names(html, 'hubspot.com')).toEqual(['Stripe']);
    expect(names(html, 'stripe.com')).toEqual(['HubSpot']);
  });
});
