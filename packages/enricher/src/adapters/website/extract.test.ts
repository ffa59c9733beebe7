import { describe, expect, it } from 'vitest';
import { companyCandidate, extractCompanyFromHtml } from './company.js';
import { extractPage } from './extract.js';
import { readJsonLd } from './jsonld.js';
import { socialProfile, socialProfiles } from './social.js';
import { pickSubpages } from './subpages.js';

const ACME = `<!doctype html><html><head>
<title>Acme Widgets | Industrial widgets since 1952</title>
<meta name="description" content="Widgets &amp; gadgets for industry.">
<meta property="og:site_name" content="Acme (OG)">
<link rel="icon" href="/favicon.ico"><link rel="apple-touch-icon" sizes="180x180" href="/apple.png">
<script type="application/ld+json">{"@context":"https://schema.org","@graph":[
  {"@type":"WebSite","name":"Acme site","url":"https://acme.test/"},
  {"@type":["Corporation"],"name":"Acme Widgets GmbH","url":"https://www.acme.test/","logo":{"@type":"ImageObject","url":"/img/logo.svg"},
   "foundingDate":"1952-03-01","numberOfEmployees":{"@type":"QuantitativeValue","minValue":200,"maxValue":300},
   "sameAs":["https://de.linkedin.com/company/acme-widgets/","https://twitter.com/acme"],
   "address":{"@type":"PostalAddress","addressLocality":"Berlin","addressCountry":"DE"},
   "employee":[{"@type":"Person","name":"Jane Roe","jobTitle":"CEO","sameAs":"https://www.linkedin.com/in/JaneRoe"}]}
]}</script>
<script type="application/ld+json">{ not json </script>
</head><body>
<header><a href="/"><img class="site-logo" src="/img/header-logo.png" alt="Acme"></a></header>
<nav><a href="/about-us/">About us</a> <a href="/jobs">Jobs</a> <a href="https://other.test/team">Team elsewhere</a>
<a href="/kontakt">Kontakt</a> <a href="#top">Top</a></nav>
<p>Founded</p><p>in 1960 (not the JSON-LD year)</p>
<footer><a href="https://www.facebook.com/sharer/sharer.php?u=x">Share</a>
<a href="https://www.facebook.com/acmewidgets">Facebook</a> <a href="https://github.com/acme/">GitHub</a></footer>
<script>var t = "<p>not text</p>";</script>
</body></html>`;

describe('extractPage (htmlparser2)', () => {
  it('reads title, meta (entities decoded), JSON-LD blocks, links, icons and logo images', () => {
    const page = extractPage(ACME, 'https://acme.test/');
    expect(page.title).toBe('Acme Widgets | Industrial widgets since 1952');
    expect(page.meta.description).toEqual(['Widgets & gadgets for industry.']);
    expect(page.jsonLd).toHaveLength(2);
    expect(page.icons[0]).toBe('https://acme.test/apple.png');
    expect(page.logoImages).toEqual(['https://acme.test/img/header-logo.png']);
    expect(page.links.map((l) => l.url)).toContain('https://acme.test/about-us/');
    expect(page.links.some((l) => l.url.includes('#top'))).toBe(false);
    // Script bodies are not visible text, and block ends separate words.
    expect(page.text).not.toContain('not text');
    expect(page.text).toContain('Founded in 1960');
    expect(page.inline).toEqual(['var t = "<p>not text</p>";']);
  });

  it('honours <base href> when resolving links', () => {
    const page = extractPage(
      '<base href="https://cdn.acme.test/x/"><script src="app.js"></script>',
      'https://acme.test/',
    );
    expect(page.scripts).toEqual(['https://cdn.acme.test/x/app.js']);
  });
});

describe('readJsonLd', () => {
  it('finds Organization subtypes and Person nodes however nested; skips broken blocks', () => {
    const { organizations, people } = readJsonLd(extractPage(ACME, 'https://acme.test/').jsonLd);
    expect(organizations).toHaveLength(1);
    expect(organizations[0]).toMatchObject({
      name: 'Acme Widgets GmbH',
      foundingYear: 1952,
      employeeCount: 250,
      location: 'Berlin, DE',
      logo: '/img/logo.svg',
    });
    expect(people).toEqual([
      expect.objectContaining({ name: 'Jane Roe', jobTitle: 'CEO', worksFor: 'Acme Widgets GmbH' }),
    ]);
  });

  it('accepts LocalBusiness-style subtypes by suffix and plain numbers of employees', () => {
    const { organizations } = readJsonLd([
      '[{"@type":"DentalBusiness","name":"Smile","numberOfEmployees":"1,200"},{"@type":"Person","name":"X"}]',
    ]);
    expect(organizations).toEqual([expect.objectContaining({ name: 'Smile', employeeCount: 1200 })]);
  });
});

describe('social profiles', () => {
  it('keeps profiles, drops share buttons, canonicalises hosts', () => {
    expect(socialProfile('https://de.linkedin.com/company/acme-widgets/')).toEqual({
      network: 'linkedin',
      handle: 'acme-widgets',
      url: 'https://www.linkedin.com/company/acme-widgets',
    });
    expect(socialProfile('https://twitter.com/acme?lang=en')?.url).toBe('https://x.com/acme');
    expect(socialProfile('https://twitter.com/intent/tweet?text=hi')).toBeNull();
    expect(socialProfile('https://www.facebook.com/sharer/sharer.php?u=x')).toBeNull();
    expect(socialProfile('https://fb.com/acme')?.url).toBe('https://www.facebook.com/acme');
    expect(socialProfiles(['https://github.com/a', 'https://github.com/b'])).toEqual({
      github: 'https://github.com/a',
    });
  });
});

describe('pickSubpages', () => {
  it('picks one about/team/contact/imprint link per kind on the same host', () => {
    const page = extractPage(ACME, 'https://acme.test/');
    expect(pickSubpages(page, 4)).toEqual([
      { url: 'https://acme.test/about-us/', kind: 'about' },
      { url: 'https://acme.test/kontakt', kind: 'contact' },
    ]);
    expect(pickSubpages(page, 1)).toEqual([{ url: 'https://acme.test/about-us/', kind: 'about' }]);
  });
});

describe('companyCandidate', () => {
  it('prefers JSON-LD, then meta, then page text, with per-field confidence', () => {
    const page = extractPage(ACME, 'https://acme.test/');
    const candidate = companyCandidate({ domain: 'acme.test', pages: [page], headers: {}, cookies: [] });
    expect(candidate?.fields).toEqual({
      domain: 'acme.test',
      name: 'Acme Widgets GmbH',
      description: 'Widgets & gadgets for industry.',
      founded: 1952,
      employee_count: 250,
      location: 'Berlin, DE',
      social: {
        linkedin: 'https://www.linkedin.com/company/acme-widgets',
        x: 'https://x.com/acme',
        facebook: 'https://www.facebook.com/acmewidgets',
        github: 'https://github.com/acme',
      },
      logo: 'https://acme.test/img/logo.svg',
    });
    expect(candidate?.fieldConfidence?.name).toBe(0.9);
    expect(candidate?.fieldConfidence?.description).toBe(0.75);
  });

  it('falls back to og:site_name, statements on the about page and the header logo without JSON-LD', () => {
    const html = `<title>Beta Corp — Tools</title><meta property="og:site_name" content="Beta">
      <img id="logo" src="/l.png"><p>Gegründet 2011 in Köln. Heute über 1.200 Mitarbeiter.</p>`;
    const about = `<h1>Über uns</h1><p>Die Beta GmbH wurde 2011 in Köln gegründet. Heute beschäftigen wir über 1.200 Mitarbeiter.</p>`;
    const candidate = companyCandidate({
      domain: 'beta.test',
      pages: [
        { ...extractPage(html, 'https://beta.test/'), kind: 'home' },
        { ...extractPage(about, 'https://beta.test/unternehmen'), kind: 'about' },
      ],
      headers: {},
      cookies: [],
    });
    expect(candidate?.fields).toMatchObject({
      name: 'Beta',
      founded: 2011,
      employee_count: 1200,
      logo: 'https://beta.test/l.png',
    });
    expect(candidate?.fieldConfidence).toMatchObject({ name: 0.8, founded: 0.6, employee_count: 0.55 });
    expect(candidate?.fieldEvidence).toMatchObject({
      name: 'og:site_name',
      founded: 'about page text (https://beta.test/unternehmen)',
    });
  });

  it('never reads a founding year or head count from the homepage or other pages’ running text', () => {
    // The same statements as above, but on the homepage and on a news page.
    const home = `<title>Beta</title><p>Die Beta GmbH wurde 2011 gegründet. Wir haben 1.200 Mitarbeiter.</p>`;
    const news = `<p>Beta was founded in 1990. We have 500 employees.</p>`;
    const candidate = companyCandidate({
      domain: 'beta.test',
      pages: [extractPage(home, 'https://beta.test/'), extractPage(news, 'https://beta.test/news/2020/beta')],
      headers: {},
      cookies: [],
    });
    expect(candidate?.fields.founded).toBeUndefined();
    expect(candidate?.fields.employee_count).toBeUndefined();
  });

  it('is null for a page that says nothing about the company', () => {
    const empty = extractPage('<html><body></body></html>', 'https://x.test/');
    expect(companyCandidate({ domain: 'x.test', pages: [empty], headers: {}, cookies: [] })).toBeNull();
  });
});

describe('extractCompanyFromHtml', () => {
  it('reads a company and its technologies from one page held in memory', () => {
    const candidate = extractCompanyFromHtml(ACME, 'https://www.acme.test/', {
      headers: { 'x-vercel-id': 'fra1::x' },
    });
    expect(candidate?.fields).toMatchObject({
      domain: 'acme.test',
      name: 'Acme Widgets GmbH',
      technologies: ['Vercel'],
    });
  });
});
