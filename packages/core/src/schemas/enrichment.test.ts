import type { Static } from 'typebox';
import { Compile } from 'typebox/compile';
import { describe, expect, expectTypeOf, it } from 'vitest';
import type { CompanyProfile, Person } from '../types/enrichment.js';
import {
  CompanyEnrichmentRequestSchema,
  CompanyEnrichmentResultSchema,
  type CompanyProfileSchema,
  ContactEnrichmentRequestSchema,
  ContactEnrichmentResultSchema,
  type PersonSchema,
} from './enrichment.js';

const person: Person = {
  full_name: 'Dana Whitfield',
  title: 'VP of Engineering',
  seniority: 'vp',
  company: {
    name: 'Acme Cloud',
    domain: 'acmecloud.example',
    employee_count: 312,
    founded: 2012,
    technologies: ['HubSpot'],
  },
  confidence: 0.91,
};

describe('enrichment schemas', () => {
  it('agree with the hand-written types (spec §2.4 fields required, extras optional)', () => {
    expectTypeOf<Person>().toExtend<Static<typeof PersonSchema>>();
    expectTypeOf<Static<typeof PersonSchema>>().toExtend<Person>();
    expectTypeOf<CompanyProfile>().toExtend<Static<typeof CompanyProfileSchema>>();
    expectTypeOf<Static<typeof CompanyProfileSchema>>().toExtend<CompanyProfile>();
  });

  it('accept a person with sources and refuse one missing a spec field or with a bad seniority', () => {
    const check = Compile(ContactEnrichmentResultSchema);
    const sources = { title: { adapter: 'peopledatalabs', retrieved_at: '2026-11-23T12:00:00.000Z' } };
    expect(check.Check({ person: { ...person, email: null, sources } })).toBe(true);
    const { seniority: _, ...noSeniority } = person;
    expect(check.Check({ person: noSeniority })).toBe(false);
    expect(check.Check({ person: { ...person, seniority: 'boss' } })).toBe(false);
    expect(check.Check({ person: { ...person, confidence: 1.5 } })).toBe(false);
  });

  it('accept a department from the list or null, and refuse any other', () => {
    const check = Compile(ContactEnrichmentResultSchema);
    expect(check.Check({ person: { ...person, department: 'engineering' } })).toBe(true);
    expect(check.Check({ person: { ...person, department: null } })).toBe(true);
    expect(check.Check({ person: { ...person, department: 'boss' } })).toBe(false);
  });

  it('request bodies refuse unknown fields; a company needs a domain', () => {
    const contact = Compile(ContactEnrichmentRequestSchema);
    expect(contact.Check({ email: 'a@b.example' })).toBe(true);
    expect(contact.Check({ domain: 'b.example', full_name: 'A B' })).toBe(true);
    expect(contact.Check({ mail: 'a@b.example' })).toBe(false);
    const company = Compile(CompanyEnrichmentRequestSchema);
    expect(company.Check({ domain: 'b.example' })).toBe(true);
    expect(company.Check({})).toBe(false);
    const result = Compile(CompanyEnrichmentResultSchema);
    expect(
      result.Check({
        company: {
          name: 'Acme',
          domain: 'acme.example',
          description: null,
          employee_count: null,
          founded: 2010,
          industry: null,
          location: null,
          technologies: [],
          social: { linkedin: 'https://www.linkedin.com/company/acme' },
          language: 'de',
          confidence: 0.8,
          logo: null,
          sources: {
            name: { adapter: 'website', retrieved_at: '2026-11-27T12:00:00Z', evidence: 'og:site_name' },
          },
        },
      }),
    ).toBe(true);
  });
});
