import type { CompanyFields, PersonFields, PersonQuery } from '../adapter.js';
import { registrableDomain } from '../query.js';
import type { FieldSource } from './merge.js';

/**
 * The person's company block: the spec's five fields and the other fields of a company profile,
 * every one present (null or empty when unknown).
 */
export interface EnrichedPersonCompany {
  name: string | null;
  domain: string | null;
  employee_count: number | null;
  founded: number | null;
  technologies: string[];
  description: string | null;
  industry: string | null;
  location: string | null;
  social: Record<string, string>;
  language: string | null;
  logo: string | null;
}

/** What the company lookup for the person's company domain found (fields at or above the threshold). */
export interface CompanyLookup {
  values: Partial<CompanyFields>;
  sources: Record<string, FieldSource>;
}

/**
 * The registrable domain of the person's company, or null when nobody says which it is: the
 * `company_domain` a person source gave, else the domain the caller named with the full name. An
 * email's domain alone is not taken (a personal address at a mail provider would describe the
 * provider); a person source that read the company's site states it.
 */
export function personCompanyDomain(query: PersonQuery, fields: Partial<PersonFields>): string | null {
  if (fields.company_domain !== undefined) {
    try {
      return registrableDomain(fields.company_domain, 'company_domain');
    } catch {
      return null;
    }
  }
  return query.by === 'domain_name' ? query.domain : null;
}

/** Company fields as a person carries them (flat, prefixed), where the person's sources have them. */
const FROM_PERSON = {
  name: 'company_name',
  domain: 'company_domain',
  employee_count: 'company_employee_count',
  founded: 'company_founded',
  technologies: 'company_technologies',
} as const satisfies Partial<Record<keyof CompanyFields, keyof PersonFields>>;

const integer = (value: number | undefined) => (value === undefined ? null : Math.round(value));

/**
 * The person's company block and the sources of its fields (`company_<field>`). The company
 * lookup for the company's domain is the authority on the company (it is what
 * `enrichCompany` answers for that domain); what the person's own sources say about their
 * employer fills what it lacks. Null when neither knows anything of the company.
 */
export function personCompany(
  domain: string | null,
  fields: Partial<PersonFields>,
  personSources: Record<string, FieldSource>,
  company: CompanyLookup | null,
): { company: EnrichedPersonCompany | null; sources: Record<string, FieldSource> } {
  const found: Partial<CompanyFields> = company?.values ?? {};
  const sources: Record<string, FieldSource> = {};
  const pick = <F extends keyof CompanyFields>(field: F): CompanyFields[F] | undefined => {
    const own = found[field];
    if (own !== undefined && company?.sources[field]) {
      sources[`company_${field}`] = company.sources[field];
      return own;
    }
    const personField = (FROM_PERSON as Partial<Record<keyof CompanyFields, keyof PersonFields>>)[field];
    if (personField === undefined || fields[personField] === undefined) return undefined;
    const source = personSources[personField];
    if (source) sources[personField] = source;
    return fields[personField] as CompanyFields[F];
  };
  const block: EnrichedPersonCompany = {
    name: pick('name') ?? null,
    // The domain the company was looked up by: the person's sources named it, or the caller did.
    domain,
    employee_count: integer(pick('employee_count')),
    founded: integer(pick('founded')),
    technologies: pick('technologies') ?? [],
    description: pick('description') ?? null,
    industry: pick('industry') ?? null,
    location: pick('location') ?? null,
    social: pick('social') ?? {},
    language: pick('language') ?? null,
    logo: pick('logo') ?? null,
  };
  if (domain !== null && personSources.company_domain) sources.company_domain = personSources.company_domain;
  const known = Object.entries(block).some(
    ([key, value]) =>
      key !== 'domain' &&
      value !== null &&
      !(Array.isArray(value) && value.length === 0) &&
      !(typeof value === 'object' && !Array.isArray(value) && Object.keys(value).length === 0),
  );
  // A domain the person's sources stated is itself a fact about their company; the caller's own is not.
  if (!known && personSources.company_domain === undefined) return { company: null, sources: {} };
  return { company: block, sources };
}
