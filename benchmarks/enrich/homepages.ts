// Generated company homepages for the enrich suite: deterministic (seeded), 5–30 KiB each, varied
// the way real B2B homepages are — some describe the company in JSON-LD (Organization, a subtype,
// or inside an @graph), some only in OpenGraph/meta; footers link social profiles (and share
// buttons, which are not profiles); script tags load technologies from the enricher's fingerprint
// set, and the rest of the page is navigation, sections and running text.
import { seeded } from '../lib/measure.js';

/** One generated homepage and what it was built with (what a perfect extractor would find). */
export interface Homepage {
  url: string;
  html: string;
  /** The page has a JSON-LD organisation node describing the company. */
  jsonLd: boolean;
  /** Social profile links in the page (share buttons not counted). */
  social: number;
  /** Technologies its script tags load, by fingerprint-set name. */
  technologies: string[];
}

/** Script URLs of technologies the fingerprint set names (packages/enricher/src/adapters/website/fingerprints.json). */
const SCRIPTS: [name: string, src: string][] = [
  ['HubSpot', 'https://js.hs-scripts.com/4711.js'],
  ['Marketo', 'https://munchkin.marketo.net/munchkin.js'],
  ['Intercom', 'https://widget.intercom.io/widget/abc123'],
  ['Drift', 'https://js.driftt.com/include/1700000000/abc.js'],
  ['Zendesk', 'https://static.zdassets.com/ekr/snippet.js?key=1'],
  ['Google Tag Manager', 'https://www.googletagmanager.com/gtm.js?id=GTM-ABC1'],
  ['Segment', 'https://cdn.segment.com/analytics.js/v1/key/analytics.min.js'],
  ['Hotjar', 'https://static.hotjar.com/c/hotjar-123.js?sv=6'],
  ['Mixpanel', 'https://cdn.mxpnl.com/libs/mixpanel-2-latest.min.js'],
  ['Optimizely', 'https://cdn.optimizely.com/js/12345.js'],
  ['OneTrust', 'https://cdn.cookielaw.org/scripttemplates/otSDKStub.js'],
  ['Cookiebot', 'https://consent.cookiebot.com/uc.js'],
  ['Stripe', 'https://js.stripe.com/v3/'],
  ['Calendly', 'https://assets.calendly.com/assets/external/widget.js'],
  ['Typeform', 'https://embed.typeform.com/next/embed.js'],
  ['Sentry', 'https://browser.sentry-cdn.com/7.100.0/bundle.min.js'],
  ['jQuery', 'https://code.jquery.com/jquery-3.7.1.min.js'],
  ['Crisp', 'https://client.crisp.chat/l.js'],
  ['Pendo', 'https://cdn.pendo.io/agent/static/key/pendo.js'],
  ['Wistia', 'https://fast.wistia.com/assets/external/E-v1.js'],
  ['Klaviyo', 'https://static.klaviyo.com/onsite/js/klaviyo.js?company_id=X'],
  ['Next.js', '/_next/static/chunks/main-abc123.js'],
  ['Webflow', 'https://assets.website-files.com/5f/js/webflow.js'],
  ['Shopify', 'https://cdn.shopify.com/s/files/1/theme.js'],
];

const WORDS =
  'platform teams customers data workflow secure cloud scale insight revenue pipeline integrate automate partner reliable growth analytics enterprise support modern simple fast trusted global product solution service operations finance marketing sales engineering'.split(
    ' ',
  );
/** Organization and subtypes a site may declare itself as (the enricher reads all of them). */
const TYPES = ['Organization', 'Organization', 'Corporation', 'LocalBusiness', 'NGO'];
const NETWORKS: ((slug: string) => string)[] = [
  (s) => `https://www.linkedin.com/company/${s}/`,
  (s) => `https://twitter.com/${s.replace(/-/g, '_').slice(0, 15)}`,
  (s) => `https://www.facebook.com/${s}`,
  (s) => `https://github.com/${s}`,
  (s) => `https://www.youtube.com/@${s}`,
  (s) => `https://www.instagram.com/${s.replace(/-/g, '.')}/`,
];

function sentence(random: () => number, words: number): string {
  const out: string[] = [];
  for (let i = 0; i < words; i++) out.push(WORDS[Math.floor(random() * WORDS.length)]!);
  const text = out.join(' ');
  return `${text[0]!.toUpperCase()}${text.slice(1)}.`;
}

function pick<T>(random: () => number, items: T[], count: number): T[] {
  const pool = [...items];
  const out: T[] = [];
  while (out.length < count && pool.length > 0)
    out.push(pool.splice(Math.floor(random() * pool.length), 1)[0]!);
  return out;
}

/** Builds `count` homepages from a fixed seed. */
export function generateHomepages(count: number, seed = 12): Homepage[] {
  const random = seeded(seed);
  const pages: Homepage[] = [];
  for (let i = 0; i < count; i++) {
    const slug = `company-${i}-${Math.floor(random() * 1e6).toString(36)}`;
    const name = `${slug.replace(/-/g, ' ').replace(/\b\w/g, (c) => c.toUpperCase())} Inc`;
    const url = `https://www.${slug}.example.com/`;
    const description = sentence(random, 18);
    const founded = 1960 + Math.floor(random() * 64);
    const employees = 5 + Math.floor(random() * 5000);

    // 70 % describe themselves in JSON-LD; a third of those wrap it in an @graph with a WebSite node.
    const jsonLd = random() < 0.7;
    const socials = pick(random, NETWORKS, Math.floor(random() * 6)).map((network) => network(slug));
    const technologies = pick(random, SCRIPTS, Math.floor(random() * 9));
    const head: string[] = [
      '<meta charset="utf-8">',
      '<meta name="viewport" content="width=device-width, initial-scale=1">',
      `<title>${name} | ${sentence(random, 4).slice(0, -1)}</title>`,
      `<meta name="description" content="${description}">`,
      `<link rel="canonical" href="${url}">`,
      `<link rel="icon" href="/favicon-32.png" sizes="32x32">`,
      `<link rel="apple-touch-icon" href="/apple-touch-icon.png">`,
      '<link rel="stylesheet" href="/assets/site.css">',
    ];
    if (random() < 0.85) {
      head.push(
        `<meta property="og:site_name" content="${name}">`,
        `<meta property="og:title" content="${name} — ${sentence(random, 5).slice(0, -1)}">`,
        `<meta property="og:description" content="${description}">`,
        `<meta property="og:url" content="${url}">`,
        `<meta property="og:image" content="${url}images/og-card.png">`,
        '<meta name="twitter:card" content="summary_large_image">',
      );
    }
    if (jsonLd) {
      const type = TYPES[Math.floor(random() * TYPES.length)]!;
      const org = {
        '@type': type,
        name,
        url,
        logo: `${url}images/logo.svg`,
        description,
        foundingDate: String(founded),
        numberOfEmployees: { '@type': 'QuantitativeValue', value: employees },
        address: { '@type': 'PostalAddress', addressLocality: 'Berlin', addressCountry: 'DE' },
        sameAs: socials.slice(0, 2),
      };
      const body =
        random() < 0.33
          ? { '@context': 'https://schema.org', '@graph': [{ '@type': 'WebSite', name, url }, org] }
          : { '@context': 'https://schema.org', ...org };
      head.push(`<script type="application/ld+json">${JSON.stringify(body)}</script>`);
    }
    for (const [, src] of technologies) head.push(`<script async src="${src}"></script>`);
    head.push(
      `<script>window.dataLayer=window.dataLayer||[];window.__site=${JSON.stringify({ slug })};</script>`,
    );

    const nav = ['Product', 'Solutions', 'Pricing', 'Customers', 'About', 'Careers', 'Contact', 'Blog']
      .map((label) => `<li><a href="/${label.toLowerCase()}">${label}</a></li>`)
      .join('');
    // 5–30 KiB overall: sections of running text until the target size is reached.
    const target = 5 * 1024 + Math.floor(random() * 25 * 1024);
    const sections: string[] = [];
    let size = head.join('').length + nav.length + 2000;
    while (size < target) {
      const section = `<section class="feature"><h2>${sentence(random, 4)}</h2><p>${sentence(random, 40)} ${sentence(random, 30)}</p><ul><li>${sentence(random, 8)}</li><li>${sentence(random, 8)}</li></ul><a class="button" href="/product">Learn more</a><img src="/images/f${sections.length}.webp" alt="${sentence(random, 3)}" loading="lazy"></section>`;
      sections.push(section);
      size += section.length;
    }
    const footerSocial = socials.map(
      (href) => `<a href="${href}" rel="noopener">${new URL(href).hostname}</a>`,
    );
    // A share button is a social link that is not the company's profile.
    footerSocial.push(`<a href="https://twitter.com/intent/tweet?url=${encodeURIComponent(url)}">Share</a>`);
    const html = `<!doctype html>
<html lang="en"><head>${head.join('\n')}</head>
<body><header><a href="/"><img src="/images/logo.svg" alt="${name} logo" class="logo"></a><nav><ul>${nav}</ul></nav></header>
<main><h1>${sentence(random, 6)}</h1><p class="lead">${description} Since ${founded} we have helped teams in ${1 + Math.floor(random() * 90)} countries.</p>
${sections.join('\n')}</main>
<footer><p>© ${name}. ${sentence(random, 6)}</p><div class="social">${footerSocial.join(' ')}</div><a href="/imprint">Imprint</a> <a href="/privacy">Privacy</a></footer>
</body></html>`;
    pages.push({
      url,
      html,
      jsonLd,
      social: socials.length,
      technologies: technologies.map(([tech]) => tech),
    });
  }
  return pages;
}
