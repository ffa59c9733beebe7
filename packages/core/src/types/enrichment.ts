/**
 * The company block inside a person profile (spec §2.4): the spec's five fields, plus the other
 * fields of a company profile (the extras the spec allows), filled from the company lookup for the
 * person's company domain.
 */
export interface PersonCompany {
  name: string | null;
  domain: string | null;
  employee_count: number | null;
  /** year */
  founded: number | null;
  technologies: string[];
  description?: string | null;
  industry?: string | null;
  location?: string | null;
  social?: Record<string, string>;
  /** The company site's language: a BCP 47 primary language subtag (`en`, `de`), or null. */
  language?: string | null;
  logo?: string | null;
}

/** Seniority levels a title is classified into (DESIGN §7). */
export type Seniority =
  | 'executive'
  | 'vp'
  | 'director'
  | 'manager'
  | 'senior'
  | 'entry'
  | 'intern'
  | 'unknown';

/**
 * The function a title names (`classifySeniority` in `@svc/enricher` reads it), as the paid
 * providers report it; `other` is a named function outside this list (a trade, farming, the arts).
 * A title that names no function ("Manager", "Owner") has no department: null, never a guess.
 */
export type Department =
  | 'engineering'
  | 'sales'
  | 'marketing'
  | 'finance'
  | 'hr'
  | 'operations'
  | 'legal'
  | 'product'
  | 'design'
  | 'support'
  | 'executive'
  | 'education'
  | 'health'
  | 'other';

/** A person profile (spec §2.4, abridged there; extra fields allowed). */
export interface Person {
  full_name: string | null;
  title: string | null;
  seniority: Seniority;
  /** The function the title names, or null when it names none (an extra beyond spec §2.4). */
  department?: Department | null;
  company: PersonCompany | null;
  /** 0..1 */
  confidence: number;
}

/** The result of POST /enrich/contact. */
export interface ContactEnrichmentResult {
  person: Person;
}

/** The query of POST /enrich/contact: exactly one of the three forms. */
export type ContactEnrichmentQuery =
  | { email: string }
  | { domain: string; full_name: string }
  | { profile_url: string };

/** A company profile (spec §2.7 leaves it open; DESIGN §7 decides). */
export interface CompanyProfile {
  name: string | null;
  domain: string;
  description: string | null;
  employee_count: number | null;
  founded: number | null;
  industry: string | null;
  location: string | null;
  technologies: string[];
  social: Record<string, string>;
  /** The company site's language: a BCP 47 primary language subtag (`en`, `de`), or null. */
  language: string | null;
  confidence: number;
}

/** The result of POST /enrich/company. */
export interface CompanyEnrichmentResult {
  company: CompanyProfile;
}
