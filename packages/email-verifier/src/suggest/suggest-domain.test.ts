import { parse } from 'tldts';
import { describe, expect, it } from 'vitest';
import { isStringRecord, readDataFile } from '../lists/data-files.js';
import { characterMask, nameEditBudget, suggestDomain } from './suggest-domain.js';

describe('suggestDomain', () => {
  it.each([
    ['gmial.com', 'gmail.com'],
    ['gmai.com', 'gmail.com'],
    ['gnail.com', 'gmail.com'],
    ['gmail.co', 'gmail.com'],
    ['gmail.con', 'gmail.com'],
    ['gmail.cm', 'gmail.com'],
    ['gmial.con', 'gmail.com'],
    ['GMIAL.COM', 'gmail.com'],
    ['hotmial.com', 'hotmail.com'],
    ['hotmai.com', 'hotmail.com'],
    ['hotmail.fe', 'hotmail.fr'],
    ['yaho.com', 'yahoo.com'],
    ['yahooo.com', 'yahoo.com'],
    ['yahoo.co.uj', 'yahoo.co.uk'],
    ['outlok.com', 'outlook.com'],
    ['outlook.con', 'outlook.com'],
    ['iclod.com', 'icloud.com'],
    ['googlemial.com', 'googlemail.com'],
    ['protonmial.com', 'protonmail.com'],
    ['mycompany.con', 'mycompany.com'],
    ['example.cmo', 'example.com'],
    ['example.ogr', 'example.org'],
    ['sub.example.nte', 'sub.example.net'],
  ])('%s → %s', (domain, expected) => {
    expect(suggestDomain(domain)).toBe(expected);
  });

  it.each([
    // Known providers themselves.
    'gmail.com',
    'yahoo.co.uk',
    'mail.com',
    'email.com',
    'ymail.com',
    'gmx.at',
    'yahoo.dk',
    'hotmail.de',
    // Unrelated domains.
    'example.org',
    'mycompany.com',
    'example.com',
    'acme.co.uk',
    // Short names never get a name edit: bol.com is not a typo of aol.com.
    'bol.com',
    'aim.net',
    'msm.com',
    // A real TLD is swapped only towards com/net/org and only for names of 5+ letters.
    'live.co',
    'gmx.co',
    'me.co',
    'web.dk',
    // Two edits in the name of a mid-length name are too many.
    'gmiall.com',
    'no-dot',
    '',
    '.com',
    'gmail.',
  ])('%s → null', (domain) => {
    expect(suggestDomain(domain)).toBeNull();
  });

  it('gives the same answer from its cache', () => {
    for (let i = 0; i < 3; i++) {
      expect(suggestDomain('gmial.com')).toBe('gmail.com');
      expect(suggestDomain('example.org')).toBeNull();
    }
  });

  it('stays correct when its cache overflows', () => {
    for (let i = 0; i < 10_050; i++) suggestDomain(`company${i}.com`);
    expect(suggestDomain('gmial.com')).toBe('gmail.com');
    expect(suggestDomain('company5.com')).toBeNull();
  });
});

describe('suggestion data', () => {
  it('lists only TLD typos that are not real top-level domains', () => {
    const typos = readDataFile('tld-typos.json', isStringRecord);
    expect(Object.keys(typos).length).toBeGreaterThan(10);
    for (const [typo, fix] of Object.entries(typos)) {
      expect(parse(`x.${typo}`).isIcann, typo).toBe(false);
      expect(parse(`x.${fix}`).isIcann, fix).toBe(true);
    }
  });
});

describe('helpers', () => {
  it('nameEditBudget grows with the name', () => {
    expect([1, 4, 5, 7, 8, 12].map(nameEditBudget)).toEqual([0, 0, 1, 1, 2, 2]);
  });

  it('characterMask sets one bit per character kind', () => {
    expect(characterMask('ab')).toBe(0b11);
    expect(characterMask('ba')).toBe(characterMask('aabb'));
    expect(characterMask('a-')).toBe((1 << 30) | 1);
    expect(characterMask('gmail', 3)).toBe(characterMask('gma'));
  });
});
