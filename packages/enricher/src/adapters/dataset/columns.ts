import type { CompanyFields, PersonFields } from '../../adapter.js';
import { canonicalProfileUrl, nameKey, normaliseEmail, registrableDomain, socialUrl } from './normalise.js';

/**
 * The columns a dataset file may have, and how one row becomes person or company fields. CSV
 * headers and JSONL keys are read alike: case and spaces do not matter, nested JSONL objects read
 * as dotted columns (`company.name` is `company_name`), and common aliases are accepted so a CRM
 * export imports without renaming.
 */

export type DatasetKind = 'person' | 'company';

const PERSON_ALIASES: Record<string, keyof PersonFields> = {
  email: 'email',
  email_address: 'email',
  full_name: 'full_name',
  name: 'full_name',
  first_name: 'first_name',
  given_name: 'first_name',
  last_name: 'last_name',
  family_name: 'last_name',
  surname: 'last_name',
  title: 'title',
  job_title: 'title',
  profile_url: 'profile_url',
  linkedin: 'profile_url',
  linkedin_url: 'profile_url',
  location: 'location',
  company_name: 'company_name',
  company: 'company_name',
  organization: 'company_name',
  company_domain: 'company_domain',
  domain: 'company_domain',
  website: 'company_domain',
  company_website: 'company_domain',
  company_employee_count: 'company_employee_count',
  employee_count: 'company_employee_count',
  company_founded: 'company_founded',
  founded: 'company_founded',
  company_technologies: 'company_technologies',
  technologies: 'company_technologies',
};

const COMPANY_ALIASES: Record<string, keyof CompanyFields> = {
  name: 'name',
  company_name: 'name',
  company: 'name',
  domain: 'domain',
  website: 'domain',
  company_domain: 'domain',
  description: 'description',
  employee_count: 'employee_count',
  employees: 'employee_count',
  founded: 'founded',
  founded_year: 'founded',
  industry: 'industry',
  location: 'location',
  technologies: 'technologies',
  logo: 'logo',
  logo_url: 'logo',
};

/** A header or key in the form the alias tables use. */
export function columnKey(header: string): string {
  const key = header
    .trim()
    .toLowerCase()
    .replace(/[\s-]+/g, '_');
  // `social.linkedin` keeps its dot (a network name); other nesting reads as one name.
  return key.startsWith('social.') ? key : key.replace(/\./g, '_');
}

/** Where each column goes, or an error naming the clash; unknown columns are listed, not fatal. */
export function planColumns(
  kind: DatasetKind,
  headers: readonly string[],
): { fields: Map<string, string>; ignored: string[] } {
  const aliases: Record<string, string> = kind === 'person' ? PERSON_ALIASES : COMPANY_ALIASES;
  const fields = new Map<string, string>();
  const ignored: string[] = [];
  const taken = new Map<string, string>();
  for (const header of headers) {
    const key = columnKey(header);
    const field = kind === 'company' && key.startsWith('social.') && key.length > 7 ? key : aliases[key];
    if (!field) {
      ignored.push(header);
      continue;
    }
    const earlier = taken.get(field);
    if (earlier !== undefined) {
      throw new Error(`columns "${earlier}" and "${header}" both give ${field}; keep one`);
    }
    taken.set(field, header);
    fields.set(header, field);
  }
  return { fields, ignored };
}

/** A person row ready for the index: its fields and the keys it is found by. */
export interface PersonRow {
  fields: Partial<PersonFields>;
  email: string | null;
  profileUrl: string | null;
  domain: string | null;
  nameKey: string | null;
}

export interface CompanyRow {
  fields: Partial<CompanyFields>;
  domain: string;
}

/** Thrown for a row that cannot be imported; the reader adds the file and line. */
export class RowError extends Error {}

function integer(field: string, text: string, min: number, max: number): number {
  const value = Number(text.replace(/[,_ ]/g, ''));
  if (!Number.isInteger(value) || value < min || value > max) {
    throw new RowError(`${field} must be a whole number from ${min} to ${max}, got ${JSON.stringify(text)}`);
  }
  return value;
}

function list(text: string): string[] {
  return [
    ...new Set(
      text
        .split(/[;|]/)
        .map((item) => item.trim())
        .filter(Boolean),
    ),
  ];
}

/** Column values by field, blank cells dropped. */
function collect(row: Record<string, string>, plan: Map<string, string>): Map<string, string> {
  const values = new Map<string, string>();
  for (const [header, field] of plan) {
    const value = row[header]?.trim();
    if (value) values.set(field, value);
  }
  return values;
}

export function personRow(row: Record<string, string>, plan: Map<string, string>, year: number): PersonRow {
  const values = collect(row, plan);
  const fields: Partial<PersonFields> = {};
  let email: string | null = null;
  let profileUrl: string | null = null;
  for (const [field, value] of values) {
    switch (field) {
      case 'email':
        email = normaliseEmail(value);
        if (!email) throw new RowError(`email is not an address: ${JSON.stringify(value)}`);
        fields.email = email;
        break;
      case 'profile_url':
        profileUrl = canonicalProfileUrl(value);
        if (!profileUrl) throw new RowError(`profile_url is not a profile URL: ${JSON.stringify(value)}`);
        fields.profile_url = profileUrl;
        break;
      case 'company_domain': {
        const domain = registrableDomain(value);
        if (!domain) throw new RowError(`company_domain has no registrable domain: ${JSON.stringify(value)}`);
        fields.company_domain = domain;
        break;
      }
      case 'company_employee_count':
        fields.company_employee_count = integer(field, value, 1, 10_000_000);
        break;
      case 'company_founded':
        fields.company_founded = integer(field, value, 1000, year);
        break;
      case 'company_technologies':
        fields.company_technologies = list(value);
        break;
      default:
        fields[field as 'full_name' | 'first_name' | 'last_name' | 'title' | 'location' | 'company_name'] =
          value;
    }
  }
  if (!fields.full_name && (fields.first_name || fields.last_name)) {
    fields.full_name = [fields.first_name, fields.last_name].filter(Boolean).join(' ');
  }
  if (fields.full_name) fields.full_name = fields.full_name.replace(/\s+/g, ' ');
  // A person at a company: the company's domain, else their work address's.
  const domain = fields.company_domain ?? (email ? registrableDomain(email) : null);
  if (!email && !profileUrl && !(fields.full_name && domain)) {
    throw new RowError('a person needs an email, a profile_url, or a full_name with a company_domain');
  }
  return { fields, email, profileUrl, domain, nameKey: fields.full_name ? nameKey(fields.full_name) : null };
}

export function companyRow(row: Record<string, string>, plan: Map<string, string>, year: number): CompanyRow {
  const values = collect(row, plan);
  const fields: Partial<CompanyFields> = {};
  for (const [field, value] of values) {
    if (field.startsWith('social.')) {
      const url = socialUrl(value);
      if (!url) throw new RowError(`${field} is not an http(s) URL: ${JSON.stringify(value)}`);
      fields.social = { ...fields.social, [field.slice(7)]: url };
      continue;
    }
    switch (field) {
      case 'domain': {
        const domain = registrableDomain(value);
        if (!domain) throw new RowError(`domain has no registrable domain: ${JSON.stringify(value)}`);
        fields.domain = domain;
        break;
      }
      case 'employee_count':
        fields.employee_count = integer(field, value, 1, 10_000_000);
        break;
      case 'founded':
        fields.founded = integer(field, value, 1000, year);
        break;
      case 'technologies':
        fields.technologies = list(value);
        break;
      default:
        fields[field as 'name' | 'description' | 'industry' | 'location' | 'logo'] = value;
    }
  }
  if (!fields.domain) throw new RowError('a company needs a domain');
  return { fields, domain: fields.domain };
}
