/**
 * The groups of fields that person and company sources fill together, for adapters to declare
 * `provides` from: a source that knows who a person is knows all of `PERSON_IDENTITY_FIELDS`, and
 * so on. Each adapter still lists what it adds beyond the groups, in the order results list fields.
 */
import type { CompanyFields, PersonFields } from '../adapter.js';

/** Who a person is and how to reach them: names, role, work email, profile. */
export const PERSON_IDENTITY_FIELDS = [
  'full_name',
  'first_name',
  'last_name',
  'title',
  'email',
  'profile_url',
] as const satisfies readonly (keyof PersonFields)[];

/** Where a person works. */
export const EMPLOYER_FIELDS = [
  'company_name',
  'company_domain',
] as const satisfies readonly (keyof PersonFields)[];

/** What a person record also says of the employer: its size and age. */
export const EMPLOYER_FACT_FIELDS = [
  'company_employee_count',
  'company_founded',
] as const satisfies readonly (keyof PersonFields)[];

/** A company's profile: who it is, its size and age, its trade and place. */
export const COMPANY_PROFILE_FIELDS = [
  'name',
  'domain',
  'description',
  'employee_count',
  'founded',
  'industry',
  'location',
] as const satisfies readonly (keyof CompanyFields)[];
