import { describe, expect, it } from 'vitest';
import { extractCompanyFromHtml } from './company.js';
import { chooseName, NAME_CONFIDENCE, type NameSignals } from './company-name.js';

const base: NameSignals = { logoAlts: [], domain: 'acme.com', title: '', homepage: true };

describe('chooseName', () => {
  it('takes declared names first: the own Organization, og:site_name, application-name', () => {
    expect(chooseName({ ...base, organization: 'Acme Inc.', siteName: 'Acme', title: 'Home' })).toEqual({
      name: 'Acme Inc.',
      confidence: NAME_CONFIDENCE.organization,
      via: 'organization',
    });
    expect(chooseName({ ...base, siteName: 'Acme', applicationName: 'Acme App' })?.via).toBe('og:site_name');
    expect(chooseName({ ...base, applicationName: 'Acme App' })?.confidence).toBe(
      NAME_CONFIDENCE.applicationName,
    );
  });

  it('never reads the title of a page that is not the homepage', () => {
    expect(chooseName({ ...base, homepage: false, title: 'Acme | Widgets' })).toBeUndefined();
  });

  it('chooses the brand from either side of the separator by agreement with the domain or logo', () => {
    expect(chooseName({ ...base, title: 'Industrial widgets for everyone | Acme' })).toEqual({
      name: 'Acme',
      confidence: NAME_CONFIDENCE.titleAgreeing,
      via: 'title+domain',
    });
    expect(chooseName({ ...base, title: 'Home - Acme Widgets', domain: 'acme-widgets.co.uk' })?.name).toBe(
      'Acme Widgets',
    );
    expect(chooseName({ ...base, title: 'Welcome — Zeta Labs GmbH', domain: 'zetalabs.de' })?.name).toBe(
      'Zeta Labs GmbH',
    );
    expect(
      chooseName({
        ...base,
        domain: 'zz-shop.com',
        title: 'Shoes online · Zebra Shoes',
        logoAlts: ['Zebra Shoes logo'],
      }),
    ).toMatchObject({ name: 'Zebra Shoes', via: 'title+logo alt' });
    expect(
      chooseName({ ...base, domain: 'ibm.com', title: 'International Business Machines' })?.confidence,
    ).toBe(NAME_CONFIDENCE.titleAgreeing);
  });

  it('reads the agreeing part of a declared name made of parts, and skips section names and addresses', () => {
    expect(
      chooseName({ ...base, domain: 'wnycstudios.org', siteName: 'Radiolab Podcasts | WNYC Studios' })?.name,
    ).toBe('WNYC Studios');
    expect(chooseName({ ...base, siteName: 'Support', applicationName: 'WordPress.com' })).toMatchObject({
      name: 'WordPress.com',
      via: 'application-name',
    });
    expect(chooseName({ ...base, siteName: 'https://www.acme.com', title: 'Acme' })?.via).toBe(
      'title+domain',
    );
  });

  it('does not count a title part that only starts with the domain label as agreeing', () => {
    const found = chooseName({
      ...base,
      domain: 'netflix.com',
      title: 'Netflix Germany - Watch TV Shows Online',
    });
    expect(found?.confidence).toBe(NAME_CONFIDENCE.titleAlone);
  });

  it('keeps a title that agrees with nothing below the default threshold (0.5)', () => {
    const found = chooseName({ ...base, domain: 'xyz.com', title: 'Best deals on shoes | Free shipping' });
    expect(found?.name).toBe('Best deals on shoes');
    expect(found?.confidence).toBeLessThan(0.5);
  });

  it('skips generic title parts', () => {
    expect(chooseName({ ...base, domain: 'xyz.com', title: 'Home | Startseite' })).toBeUndefined();
  });
});

describe('names of real-looking pages', () => {
  it('never makes an article headline a company name', () => {
    const article = `<html lang="en"><head><title>Acme cuts 300 jobs as profits fall - Daily News</title></head>
      <body><h1>Acme cuts 300 jobs as profits fall</h1></body></html>`;
    const candidate = extractCompanyFromHtml(
      article,
      'https://www.dailynews.com/business/2024/05/acme-cuts-jobs',
    );
    expect(candidate?.fields.name).toBeUndefined();
  });

  it('takes the title on the homepage, above the threshold only when it agrees', () => {
    const agreeing = extractCompanyFromHtml(
      '<title>Widgets since 1952 | Acme</title>',
      'https://www.acme.com/',
    );
    expect(agreeing?.fields.name).toBe('Acme');
    expect(agreeing?.fieldConfidence?.name).toBe(NAME_CONFIDENCE.titleAgreeing);
    expect(agreeing?.fieldEvidence?.name).toBe('title+domain');
    const alone = extractCompanyFromHtml(
      '<title>Widgets since 1952 | Best prices</title>',
      'https://www.acme.com/en/',
    );
    expect(alone?.fieldConfidence?.name).toBeLessThan(0.5);
  });
});
