import { describe, expect, it } from 'vitest';
import { extractCompanyFromHtml } from './company.js';
import { primaryLanguage, siteLanguage } from './language.js';

const ENGLISH =
  'We build reliable industrial valves for water utilities and chemical plants. Our engineers design every product in house, and our service team keeps your plant running around the clock. Talk to us about your next project.';
const GERMAN =
  'Wir bauen zuverlässige Industriearmaturen für Wasserversorger und Chemieanlagen. Unsere Ingenieure entwickeln jedes Produkt selbst, und unser Serviceteam sorgt rund um die Uhr dafür, dass Ihre Anlage läuft. Sprechen Sie mit uns über Ihr nächstes Projekt.';

describe('primaryLanguage', () => {
  it.each([
    ['en-US', 'en'],
    ['pt_BR', 'pt'],
    ['DE', 'de'],
    ['zh-Hant-TW', 'zh'],
    ['', null],
    ['und', null],
    ['english', null],
    ['x-klingon', null],
  ])('%s → %s', (tag, primary) => {
    expect(primaryLanguage(tag)).toBe(primary);
  });
});

describe('siteLanguage: the declaration, checked against the text', () => {
  it('confirms a declaration the text agrees with', () => {
    expect(siteLanguage('en-GB', ENGLISH)).toEqual({
      language: 'en',
      confidence: 0.95,
      via: 'declared+text',
    });
  });

  it('lets clear text overrule a template’s stale declaration', () => {
    expect(siteLanguage('en', GERMAN)).toMatchObject({ language: 'de', via: 'text' });
  });

  it('keeps a declaration with too little text to check, and reads undeclared text', () => {
    expect(siteLanguage('fr', 'Accueil')).toEqual({ language: 'fr', confidence: 0.7, via: 'declared' });
    expect(siteLanguage('', GERMAN)).toMatchObject({ language: 'de', via: 'text' });
    expect(siteLanguage('', 'Hi')).toBeNull();
  });

  it('is the company result’s language field', () => {
    const candidate = extractCompanyFromHtml(
      `<html lang="de-DE"><head><title>Acme</title></head><body><p>${GERMAN}</p></body></html>`,
      'https://acme.de/',
    );
    expect(candidate?.fields.language).toBe('de');
    expect(candidate?.fieldEvidence?.language).toBe('language (declared+text)');
  });
});
