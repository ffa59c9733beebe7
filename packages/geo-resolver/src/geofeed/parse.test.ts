import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { expandCldrCodes, isCountryCode, isSubdivisionCode } from './iso-codes.js';
import { GeofeedError, parseGeofeed } from './parse.js';

const FIXTURES = fileURLToPath(new URL('../../../../fixtures/geofeeds/', import.meta.url));
const fixture = (name: string) => readFileSync(`${FIXTURES}${name}`, 'utf8');

describe('ISO 3166 lists (CLDR)', () => {
  it('expands the compact notation and holds the counts CLDR states', () => {
    expect([...expandCldrCodes('ad02~4 AL~M usca')]).toEqual(['ad02', 'ad03', 'ad04', 'AL', 'AM', 'usca']);
    const data = fileURLToPath(new URL('../../data/iso-3166/', import.meta.url));
    // region.xml: 256 regular regions; subdivision.xml: "4932 items" regular.
    expect(expandCldrCodes(readFileSync(`${data}regions.txt`, 'utf8')).size).toBe(256);
    expect(expandCldrCodes(readFileSync(`${data}subdivisions.txt`, 'utf8')).size).toBe(4932);
  });

  it('knows countries and subdivisions', () => {
    expect(isCountryCode('US')).toBe(true);
    expect(isCountryCode('XK')).toBe(true);
    expect(isCountryCode('XX')).toBe(false);
    expect(isSubdivisionCode('US-CA')).toBe(true);
    expect(isSubdivisionCode('PL-MZ')).toBe(true);
    expect(isSubdivisionCode('GB-ENG')).toBe(true);
    expect(isSubdivisionCode('DE-XX')).toBe(false);
  });
});

describe('parseGeofeed', () => {
  it("reads RFC 8805's example, IPv4 and IPv6, reporting the bare address inside a /25", () => {
    const parsed = parseGeofeed(fixture('rfc8805-example.csv'));
    expect(parsed.rows).toBe(5);
    expect(
      parsed.entries.map((entry) => [
        entry.network,
        entry.country,
        entry.region_code,
        entry.city,
        entry.postal_code,
      ]),
    ).toEqual([
      ['192.0.2.0/25', 'US', 'US-AL', null, null],
      ['192.0.2.5/32', 'US', 'US-AL', 'Alabaster', '35007'],
      ['192.0.2.128/25', 'PL', 'PL-MZ', null, '02-784'],
      ['2001:db8::/32', 'PL', null, null, null],
      ['2001:db8:cafe::/48', 'PL', 'PL-MZ', null, '02-784'],
    ]);
    expect(parsed.problems).toEqual([
      {
        line: 4,
        kind: 'overlap',
        message: '192.0.2.5/32 lies inside 192.0.2.0/25 (line 3); the longer prefix wins',
      },
      {
        line: 7,
        kind: 'overlap',
        message: '2001:db8:cafe::/48 lies inside 2001:db8::/32 (line 6); the longer prefix wins',
      },
    ]);
  });

  it('reports every bad row with its line number and keeps the good ones', () => {
    const parsed = parseGeofeed(fixture('bad-rows.csv'));
    expect(parsed.entries.map((entry) => [entry.line, entry.network, entry.region_code, entry.city])).toEqual(
      [
        [3, '198.51.100.0/24', 'NL-NH', 'Amsterdam'],
        [9, '203.0.113.128/25', null, 'Berlin'],
        [10, '2001:db8:1::/48', null, 'London'],
        [12, '2001:db8:2::/48', 'FR-IDF', 'Paris, 1er'],
      ],
    );
    expect(parsed.problems.map((problem) => [problem.line, problem.kind, problem.message])).toEqual([
      [4, 'dropped', '198.51.100.7/24: host bits are set (not a network address)'],
      [5, 'dropped', '"not-a-prefix" is not an IP prefix'],
      [6, 'dropped', '"203.0.113.0/33": prefix length over 32'],
      [7, 'dropped', '203.0.113.0/24: "XX" is not an ISO 3166-1 alpha-2 country code'],
      [8, 'dropped', '203.0.113.0/25: no country'],
      [9, 'field-dropped', '203.0.113.128/25: region "DE-XX" is not an ISO 3166-2 code; region left out'],
      [10, 'field-dropped', '2001:db8:1::/48: region US-CA is not in country GB; region left out'],
      [11, 'dropped', '198.51.100.0/24 is listed again (first on line 3); the first row is used'],
      [13, 'dropped', 'unbalanced quotes'],
    ]);
  });

  it('stops at the row limit, says so, and refuses binary input', () => {
    const text = Array.from({ length: 5 }, (_, index) => `198.51.100.${index}/32,NL,,,`).join('\n');
    const parsed = parseGeofeed(text, { maxRows: 3 });
    expect(parsed.entries).toHaveLength(3);
    expect(parsed.problems).toEqual([
      { line: 4, kind: 'dropped', message: 'more than 3 rows: the rest of the file is not read' },
    ]);
    expect(() => parseGeofeed('\u0000\u0001mmdb')).toThrow(GeofeedError);
  });

  it('lists a bounded number of problems and counts the rest', () => {
    const text = Array.from({ length: 20 }, () => 'nope,NL,,,').join('\n');
    const parsed = parseGeofeed(text, { maxProblems: 5 });
    expect(parsed.problems).toHaveLength(6);
    expect(parsed.problems[5]?.message).toBe('15 more problems not listed');
  });
});
