import { describe, expect, it } from 'vitest';
import { employeesFromText, foundedFromText } from './text-facts.js';

const names = ['Acme Widgets', 'acme'];

describe('foundedFromText: only statements whose subject is the company', () => {
  it.each([
    ['Acme was founded in 1952 in Ohio.', 1952],
    ['Founded in 1998, Acme Widgets makes valves.', 1998],
    ['We were established in 2004 by two engineers.', 2004],
    ['Since then, we have grown. Our company was incorporated in 2010.', 2010],
    ['Die Acme GmbH wurde 1998 in Leipzig gegründet.', 1998],
    ['Wir wurden 2001 gegründet.', 2001],
    ['Nous avons été fondés en 1990.', 1990],
    ['Acme, fondée en 1990, fabrique des vannes.', 1990],
  ])('%s → %s', (text, year) => {
    expect(foundedFromText(text, names)).toBe(year);
  });

  it.each([
    'The company posted its first quarterly loss since 2011.',
    'Beta was founded in 1990 and acquired last year.',
    'In 2015 we acquired Beta, which was founded in 1990.',
    'Our partner Gamma, founded in 1985, supplies the parts.',
    'Founded in 1870, the museum shows old valves.',
    'Jane Roe founded Delta in 2009 before joining us.',
    'Acme will be founded in 2999.',
  ])('%s → nothing', (text) => {
    expect(foundedFromText(text, names)).toBeUndefined();
  });
});

describe('employeesFromText', () => {
  it.each([
    ['Today we have 320 employees worldwide.', 320],
    ['With over 1,200 employees, Acme serves 40 countries.', 1200],
    ['Acme Widgets employs 85 staff members.', 85],
    ['Heute beschäftigen wir über 1.200 Mitarbeiter.', 1200],
  ])('%s → %s', (text, count) => {
    expect(employeesFromText(text, names)).toBe(count);
  });

  it.each([
    'Beta, our largest customer, has 40,000 employees.',
    'The merger affects 5,000 employees at Gamma.',
    'We helped our client train 300 employees.',
  ])('%s → nothing', (text) => {
    expect(employeesFromText(text, names)).toBeUndefined();
  });
});
