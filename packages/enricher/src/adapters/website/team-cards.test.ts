import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { gunzipSync } from 'node:zlib';
import { type StaticSite, startStaticSite } from '@svc/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { PersonQuery } from '../../adapter.js';
import { createEnricher } from '../../enricher.js';
import { createGuardedFetch } from '../../fetch/guarded-fetch.js';
import type { SiteCrawl } from './company.js';
import { createWebsiteCrawler } from './crawler.js';
import { extractPage } from './extract.js';
import { cardCandidate, createWebsitePersonAdapter } from './people.js';
import { looksLikePersonName, type TeamCard, teamCards } from './team-cards.js';
import { createWebsiteAdapter } from './website.js';

const DATA = fileURLToPath(new URL('../../../test-data/', import.meta.url));
const page = (path: string) => gunzipSync(readFileSync(`${DATA}${path}`)).toString('utf8');

// Real pages (test-data/team-pages/README.md: sources, licences, the matching rule), the people
// on them labelled by reading the HTML.
const PEOPLE: Record<
  string,
  { path: string; people: Array<{ name: string; title: string; email?: string }> }
> = {
  fairkom: {
    path: 'company-pages/pages/trafilatura-fairkom.eu.about.html.gz',
    people: [
      { name: 'Roland Alton', title: 'Kommunikationsarchitekt' },
      { name: 'Christian König', title: 'IT Consulting' },
      { name: 'David Ayers', title: 'Sysadmin' },
      { name: 'Alexandra Klepatsch', title: 'Drupalspezialistin' },
      { name: 'Armin Felder', title: 'Programmierer' },
      { name: 'Ralf Schlatterbeck', title: 'Open Source Experte' },
      { name: 'Thomas König', title: 'Blockchainprofi' },
      { name: 'Sebastian Kuehs', title: 'Kommunikation' },
      { name: 'Christian Fischer', title: 'Screendesigner' },
      { name: 'Dieter Koschek', title: 'Netzwerker' },
      { name: 'Katze Kira', title: 'Chillerin' },
      { name: 'Johannes Büchele', title: 'Programmierer' },
      { name: 'Chris Widerström', title: 'Open Source Experte' },
      { name: 'Joana Maria Giesinger', title: 'ERPnext Expertin' },
    ],
  },
  viehbacher: {
    path: 'team-pages/htmldate-viehbacher.com.forderungsbetreibung.html.gz',
    people: [
      {
        name: 'Wiebke Scharf',
        title: 'Rechtsanwaltsfachangestellte, Kanzleileitung',
        email: 'w.scharf@viehbacher.com',
      },
      { name: 'Olga Lechzer', title: 'Geprüfte Rechtsfachwirtin', email: 'o.lechzer@viehbacher.com' },
    ],
  },
  'viehbacher services (no people)': {
    path: 'team-pages/trafilatura-viehbacher.com.steuerrecht.html.gz',
    people: [],
  },
};

/** A crawl of one team page, as the crawler makes it. */
function crawlOf(html: string, url: string, domain: string): SiteCrawl {
  const facts = { ...extractPage(html, url), kind: 'team', cards: teamCards(html) };
  return { domain, pages: [facts], headers: {}, cookies: [] };
}

describe('teamCards on real pages', () => {
  it('finds every person the pages show, and nothing else (precision and recall printed)', () => {
    let cards = 0;
    let correct = 0;
    let labelled = 0;
    const rows: string[] = [];
    for (const [id, { path, people }] of Object.entries(PEOPLE)) {
      const found = teamCards(page(path));
      const right = found.filter((card) =>
        people.some((person) => person.name === card.name && person.title === card.title),
      );
      cards += found.length;
      correct += right.length;
      labelled += people.length;
      rows.push(`${id}: ${found.length} cards, ${right.length} correct, ${people.length} people`);
      // The law firm's cards carry each person's own address and the shared one.
      for (const person of people.filter((p) => p.email)) {
        expect(found.find((card) => card.name === person.name)?.emails).toContain(person.email);
      }
    }
    const precision = correct / cards;
    const recall = correct / labelled;
    console.log(
      `team cards: ${rows.join('; ')} — precision ${(precision * 100).toFixed(1)} %, recall ${(recall * 100).toFixed(1)} %`,
    );
    expect(precision).toBe(1);
    expect(recall).toBe(1);
  });

  it('matches a person on the real pages by name, and by their own address only', () => {
    const fairkom = crawlOf(page(PEOPLE.fairkom!.path), 'https://www.fairkom.eu/about', 'fairkom.eu');
    expect(
      cardCandidate(fairkom, { by: 'domain_name', domain: 'fairkom.eu', full_name: 'alexandra klepatsch' }),
    ).toEqual({
      fields: { full_name: 'Alexandra Klepatsch', title: 'Drupalspezialistin', company_domain: 'fairkom.eu' },
      confidence: 0.65,
      fieldEvidence: {
        full_name: 'team page card (https://www.fairkom.eu/about)',
        title: 'team page card (https://www.fairkom.eu/about)',
      },
    });
    // Two people called König: only the full name is a match, never a surname.
    expect(
      cardCandidate(fairkom, { by: 'domain_name', domain: 'fairkom.eu', full_name: 'König' }),
    ).toBeNull();

    const firm = crawlOf(
      page(PEOPLE.viehbacher!.path),
      'https://www.viehbacher.com/de/steuerrecht/forderungsbeitreibung',
      'viehbacher.com',
    );
    const byEmail = cardCandidate(firm, {
      by: 'email',
      email: 'o.lechzer@viehbacher.com',
      domain: 'viehbacher.com',
    });
    expect(byEmail).toMatchObject({
      fields: {
        full_name: 'Olga Lechzer',
        title: 'Geprüfte Rechtsfachwirtin',
        email: 'o.lechzer@viehbacher.com',
      },
      confidence: 0.85,
    });
    // Both cards show the office's shared address: it is nobody's own.
    expect(
      cardCandidate(firm, { by: 'email', email: 'office@viehbacher.com', domain: 'viehbacher.com' }),
    ).toBeNull();
    const byName = cardCandidate(firm, {
      by: 'domain_name',
      domain: 'viehbacher.com',
      full_name: 'Wiebke Scharf',
    });
    expect(byName?.fields.email).toBe('w.scharf@viehbacher.com');
  });
});

// Edge cases: small pages of our own, each for one rule.
const card = (name: string, title: string, extra = '') =>
  `<div class="member"><img src="/p.jpg" alt=""><h3>${name}</h3><p>${title}</p>${extra}</div>`;
const teamPage = (...cards: string[]) =>
  `<html><body><h1>Our team</h1><div class="grid">${cards.join('\n')}</div></body></html>`;
const match = (html: string, query: PersonQuery) =>
  cardCandidate(crawlOf(html, 'https://acme.com/team', 'acme.com'), query);
const byName = (full_name: string): PersonQuery => ({ by: 'domain_name', domain: 'acme.com', full_name });
const byEmail = (email: string): PersonQuery => ({ by: 'email', email, domain: 'acme.com' });

describe('matching a person on a team page of cards', () => {
  it('cards of other people only: no match, by name or by email', () => {
    const html = teamPage(
      card('Jane Roe', 'Chief Executive Officer', '<a href="mailto:jane@acme.com">Email</a>'),
      card('John Smith', 'CTO'),
    );
    expect(match(html, byName('Dana Whitfield'))).toBeNull();
    expect(match(html, byName('Jane Smith'))).toBeNull();
    expect(match(html, byEmail('dana@acme.com'))).toBeNull();
    expect(match(html, byName('Jane Roe'))?.fields).toEqual({
      full_name: 'Jane Roe',
      title: 'Chief Executive Officer',
      email: 'jane@acme.com',
      company_domain: 'acme.com',
    });
  });

  it('a name shared by two cards with other titles is two people: no match; the same card twice is one', () => {
    const two = teamPage(
      card('Jane Roe', 'CEO'),
      card('Jane Roe', 'Office Assistant'),
      card('John Smith', 'CTO'),
    );
    expect(match(two, byName('Jane Roe'))).toBeNull();
    // A page repeating its team for small screens shows the same person twice.
    const repeated = teamPage(card('Jane Roe', 'CEO'), card('John Smith', 'CTO'), card('Jane Roe', 'CEO'));
    expect(match(repeated, byName('jane roe'))?.fields.title).toBe('CEO');
  });

  it('a mailto on another domain is not the person’s address, and does not match an email query', () => {
    const html = teamPage(
      card('Jane Roe', 'CEO', '<a href="mailto:jane.roe@gmail.com">Mail</a>'),
      card('John Smith', 'CTO', '<a href="mailto:john@acme-agency.com">Mail</a>'),
    );
    const found = match(html, byName('Jane Roe'));
    expect(found?.fields).toEqual({ full_name: 'Jane Roe', title: 'CEO', company_domain: 'acme.com' });
    expect(found?.confidence).toBe(0.65);
    expect(match(html, byEmail('john@acme.com'))).toBeNull();
  });

  it('an exact own address is strong evidence; an address that names someone else is no match', () => {
    const html = teamPage(
      card('Jane Roe', 'CEO', '<a href="mailto:JRoe@Acme.com?subject=Hi">jroe@acme.com</a>'),
      card('John Smith', 'CTO', '<a href="mailto:jane.roe@acme.com">Write to Jane</a>'),
    );
    expect(match(html, byEmail('jroe@acme.com'))).toMatchObject({
      fields: { full_name: 'Jane Roe', email: 'jroe@acme.com' },
      confidence: 0.85,
    });
    // On John's card, but naming Jane: whose it is cannot be told from the card.
    expect(match(html, byEmail('jane.roe@acme.com'))).toBeNull();
  });

  it('a name in running text, a list of names, or a single card is not a team of cards', () => {
    const prose = `<p>Ask <a href="mailto:jane@acme.com">Jane Roe</a> or <a href="mailto:john@acme.com">John Smith</a>.</p>`;
    expect(teamCards(prose)).toEqual([]);
    expect(teamCards('<ul><li>Jane Roe</li><li>John Smith</li></ul>')).toEqual([]);
    expect(teamCards(teamPage(card('Jane Roe', 'CEO')))).toEqual([]);
    const cards: TeamCard[] = teamCards(
      '<section><h3>Jane Roe</h3><p>CEO</p><h3>John Smith</h3><p>CTO</p><a href="https://www.linkedin.com/in/johnsmith/">in</a></section>',
    );
    expect(cards).toEqual([
      { name: 'Jane Roe', title: 'CEO', emails: [], profileUrl: null },
      { name: 'John Smith', title: 'CTO', emails: [], profileUrl: 'https://www.linkedin.com/in/johnsmith' },
    ]);
  });

  it('skips quotes, teasers and the site’s frame, but not a page builder’s content wrapper', () => {
    const quoted = `<div class="testimonials">${card('Jane Roe', 'CEO, Other Inc')}${card('John Smith', 'CTO, Elsewhere')}</div>`;
    expect(teamCards(quoted)).toEqual([]);
    expect(teamCards(`<nav>${card('Jane Roe', 'CEO')}${card('John Smith', 'CTO')}</nav>`)).toEqual([]);
    // WordPress wraps a page's own content in `entry-content post-content`; the body's classes describe the theme.
    const wordpress = `<body class="page menu-type-dropdown"><div class="entry-content post-content">${card('Jane Roe', 'CEO')}${card('John Smith', 'CTO')}</div></body>`;
    expect(teamCards(wordpress).map((found) => found.name)).toEqual(['Jane Roe', 'John Smith']);
  });

  it('tells names from titles and headings', () => {
    for (const name of [
      'Jane Roe',
      'Dr. José García-López',
      "Siobhan O'Neil",
      'Ludwig van Beethoven',
      'JANE ROE',
      'Mary-Kate N. Olsen',
    ])
      expect(looksLikePersonName(name), name).toBe(true);
    for (const line of [
      'Chief Executive Officer',
      'Our Team',
      'Geschäftsführerin',
      'Head of Sales',
      'Read More',
      'Anfertigung von Unternehmenssteuererklärungen',
      'Jane',
      'Call 555 1234',
    ])
      expect(looksLikePersonName(line), line).toBe(false);
  });
});

describe('the website person adapter reads cards through the real orchestrator', () => {
  let site: StaticSite;
  beforeAll(async () => {
    site = await startStaticSite({
      routes: {
        '/': '<html lang="de"><title>fairkom</title><a href="/about">Über uns</a></html>',
        '/about': page(PEOPLE.fairkom!.path),
      },
    });
  });
  afterAll(async () => {
    await site.close();
  });

  it('finds a person on a real about page of cards, with the title’s source and the company', async () => {
    const crawler = createWebsiteCrawler({ homepageUrls: (domain) => [`http://${domain}:${site.port}/`] });
    const enricher = createEnricher({
      adapters: [createWebsitePersonAdapter({ crawler }), createWebsiteAdapter({ crawler })],
      fetch: createGuardedFetch({
        lookup: async () => [{ address: '127.0.0.1', family: 4 }],
        isAllowedAddress: (ip) => ip === '127.0.0.1',
      }),
    });
    const { match, companyAdapters } = await enricher.enrichContact({
      domain: 'fairkom.eu',
      full_name: 'Ralf Schlatterbeck',
    });
    expect(match).toMatchObject({
      full_name: 'Ralf Schlatterbeck',
      title: 'Open Source Experte',
      company: { domain: 'fairkom.eu' },
    });
    expect(match?.sources.title).toMatchObject({
      adapter: 'website_people',
      evidence: `team page card (http://fairkom.eu:${site.port}/about)`,
    });
    expect(companyAdapters?.[0]).toMatchObject({ adapter: 'website', status: 'hit' });
    // One crawl of the site served the person and the company.
    expect(site.requests.filter((request) => request.path === '/about')).toHaveLength(1);
    const nobody = await enricher.enrichContact({ domain: 'fairkom.eu', full_name: 'Ralf König' });
    expect(nobody).toMatchObject({ match: null, miss: 'not_found_on_site' });
  });
});
