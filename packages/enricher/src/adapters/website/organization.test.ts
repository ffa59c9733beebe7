import { describe, expect, it } from 'vitest';
import { extractCompanyFromHtml } from './company.js';
import type { LdOrganization } from './jsonld.js';
import { ownOrganization } from './organization.js';

const org = (fields: Partial<LdOrganization>): LdOrganization => ({ sameAs: [], ...fields });

describe('ownOrganization: only an Organization tied to the queried domain counts', () => {
  const base = 'https://acme.com/';

  it('accepts one whose url, @id, sameAs or logo is on the registrable domain', () => {
    expect(ownOrganization([org({ name: 'A', url: 'https://www.acme.com/' })], 'acme.com', base)?.tie).toBe(
      'identity',
    );
    expect(ownOrganization([org({ name: 'A', id: '/#organization' })], 'acme.com', base)?.tie).toBe(
      'identity',
    );
    expect(
      ownOrganization([org({ name: 'A', sameAs: ['https://shop.acme.com'] })], 'acme.com', base)?.tie,
    ).toBe('link');
    expect(
      ownOrganization([org({ name: 'A', logo: 'https://cdn.acme.com/l.png' })], 'acme.com', base)?.tie,
    ).toBe('link');
  });

  it('ignores one that belongs to another domain, whatever page it is on', () => {
    const other = org({ name: 'Other', url: 'https://other.com', logo: 'https://other.com/l.png' });
    expect(ownOrganization([other], 'acme.com', base)).toBeUndefined();
    // acme.com.evil.net is not acme.com.
    expect(
      ownOrganization([org({ name: 'X', url: 'https://acme.com.evil.net' })], 'acme.com', base),
    ).toBeUndefined();
  });

  it("accepts the page's single publisher when its name agrees with the site, not one of several", () => {
    const agrees = (name: string) => name === 'Daily';
    const publisher = org({ name: 'Daily', via: 'publisher' });
    expect(ownOrganization([publisher], 'daily.com', 'https://daily.com/a', agrees)?.tie).toBe('publisher');
    const second = org({ name: 'Partner', via: 'publisher' });
    expect(ownOrganization([publisher, second], 'daily.com', 'https://daily.com/a', agrees)).toBeUndefined();
    // A wire service's page names the issuing company as publisher: it agrees with nothing on the site.
    const issuer = org({ name: 'Segment', via: 'publisher' });
    expect(ownOrganization([issuer], 'newswire.com', 'https://newswire.com/r/1', agrees)).toBeUndefined();
    // A publisher whose own url is elsewhere is someone else's.
    const away = org({ name: 'Daily', via: 'publisher', url: 'https://other.example/' });
    expect(ownOrganization([away], 'daily.com', 'https://daily.com/a', agrees)).toBeUndefined();
    // An author or a mentioned organisation is not the site speaking.
    expect(
      ownOrganization([org({ name: 'Daily', via: 'mentions' })], 'daily.com', 'https://daily.com/a', agrees),
    ).toBeUndefined();
  });

  it('does not take a page deeper in the site (a listed company, a hosted publication) for the site', () => {
    const listed = org({
      name: 'Audiense',
      url: 'https://uk.linkedin.com/company/audiense',
      sameAs: ['http://www.audiense.com'],
    });
    expect(ownOrganization([listed], 'linkedin.com', 'https://www.linkedin.com/company/1')).toBeUndefined();
    const publication = org({ name: 'webpack', via: 'publisher', url: 'https://medium.com/webpack' });
    expect(
      ownOrganization([publication], 'medium.com', 'https://medium.com/webpack/x', (n) => n === 'Medium'),
    ).toBeUndefined();
    // The site's own root, language root or about page does name it.
    for (const url of ['https://acme.com', 'https://www.acme.com/en/', 'https://acme.com/about-us']) {
      expect(ownOrganization([org({ name: 'Acme', url })], 'acme.com', 'https://acme.com/')?.tie).toBe(
        'identity',
      );
    }
  });

  it('prefers an identity tie over a link, and a link over a publisher', () => {
    const found = ownOrganization(
      [
        org({ name: 'Pub', via: 'publisher' }),
        org({ name: 'Linked', sameAs: ['https://acme.com'] }),
        org({ name: 'Self', url: 'https://acme.com' }),
      ],
      'acme.com',
      base,
    );
    expect(found?.org.name).toBe('Self');
  });
});

describe('a company page hosted on another site', () => {
  it('does not lend the host the listed company’s name, logo, founding year or head count', () => {
    const listing = `<title>Beta Corp | LinkedIn</title><meta property="og:site_name" content="LinkedIn">
      <script type="application/ld+json">{"@context":"http://schema.org","@type":"Organization","name":"Beta Corp",
      "url":"https://www.beta.example","logo":"https://media.licdn.com/beta.png","foundingDate":"2004",
      "numberOfEmployees":{"@type":"QuantitativeValue","value":5000},"sameAs":["https://twitter.com/betacorp"]}</script>`;
    const candidate = extractCompanyFromHtml(listing, 'https://www.linkedin.com/company/beta-corp');
    expect(candidate?.fields).toMatchObject({ domain: 'linkedin.com', name: 'LinkedIn' });
    expect(candidate?.fields.founded).toBeUndefined();
    expect(candidate?.fields.employee_count).toBeUndefined();
    expect(candidate?.fields.logo).toBeUndefined();
    expect(candidate?.fields.social).toBeUndefined();
    expect(candidate?.confidence).toBeLessThan(0.9);
  });

  it('reads a microdata Organization on the queried domain like JSON-LD', () => {
    const html = `<div itemscope itemtype="https://schema.org/Organization">
        <a itemprop="url" href="/"><img itemprop="logo" src="/logo.png" alt="Gamma"></a>
        <span itemprop="name">Gamma Tools Ltd</span>
        <meta itemprop="foundingDate" content="1987">
        <div itemprop="address" itemscope itemtype="https://schema.org/PostalAddress">
          <span itemprop="addressLocality">Leeds</span>, <span itemprop="addressCountry">GB</span></div>
        <link itemprop="sameAs" href="https://www.linkedin.com/company/gamma-tools">
      </div>`;
    const candidate = extractCompanyFromHtml(html, 'https://gamma.co.uk/');
    expect(candidate?.fields).toMatchObject({
      domain: 'gamma.co.uk',
      name: 'Gamma Tools Ltd',
      founded: 1987,
      location: 'Leeds, GB',
      logo: 'https://gamma.co.uk/logo.png',
      social: { linkedin: 'https://www.linkedin.com/company/gamma-tools' },
    });
    expect(candidate?.fieldEvidence?.founded).toBe('schema.org Organization (identity)');
  });
});
