import {
  type AdapterKind,
  type CompanyQuery,
  createEnricher,
  type Enricher,
  type EnrichmentAdapter,
  type FieldsOf,
  type LookupOutcome,
  type PersonQuery,
} from '@svc/enricher';

/**
 * The enricher of test keys: the real orchestrator (the same query validation, merging and
 * result shape as live) over two in-memory adapters that answer magic inputs and open no socket.
 * A person whose email local part, profile slug or name is `match` (`match@acme.com`,
 * `https://www.linkedin.com/in/match`, `{ domain, full_name: "Match" }`) is found, at the query's
 * company domain; a company whose registrable domain's first label is `match` (`match.io`) is found;
 * everything else is no match (204).
 */
export const SANDBOX_PERSON_NAME = 'Sandbox Match';

function isMagicPerson(query: PersonQuery): boolean {
  if (query.by === 'email') return query.email.split('@')[0] === 'match';
  if (query.by === 'profile_url') return /\/in\/match$/.test(query.profile_url);
  return query.full_name.toLowerCase() === 'match';
}

/** The sandbox's answer to a magic input: one candidate, free, at confidence 0.99. */
function found<K extends AdapterKind>(fields: Partial<FieldsOf<K>>): LookupOutcome<K> {
  return { type: 'hit', cost: 0, candidates: [{ confidence: 0.99, fields }] };
}

const sandboxPeople: EnrichmentAdapter<'person'> = {
  id: 'sandbox',
  kind: 'person',
  accepts: ['email', 'domain_name', 'profile_url'],
  provides: [
    'full_name',
    'first_name',
    'last_name',
    'title',
    'email',
    'company_name',
    'company_domain',
    'company_employee_count',
    'company_founded',
    'company_technologies',
  ],
  cost: 0,
  billsMisses: false,
  ttl: { hitSeconds: 1, missSeconds: 1 },
  concurrency: 64,
  async lookup(query): Promise<LookupOutcome<'person'>> {
    if (!isMagicPerson(query)) return { type: 'miss', cost: 0 };
    const domain = query.by === 'profile_url' ? 'sandbox-company.com' : query.domain;
    return found({
      full_name: SANDBOX_PERSON_NAME,
      first_name: 'Sandbox',
      last_name: 'Match',
      title: 'Vice President of Sales',
      ...(query.by === 'email' ? { email: query.email } : {}),
      company_name: 'Sandbox Company',
      company_domain: domain,
      company_employee_count: 120,
      company_founded: 2015,
      company_technologies: ['Google Workspace'],
    });
  },
};

const sandboxCompanies: EnrichmentAdapter<'company'> = {
  id: 'sandbox_company',
  kind: 'company',
  accepts: ['domain'],
  provides: [
    'name',
    'domain',
    'description',
    'employee_count',
    'founded',
    'industry',
    'location',
    'technologies',
    'social',
    'language',
  ],
  cost: 0,
  billsMisses: false,
  ttl: { hitSeconds: 1, missSeconds: 1 },
  concurrency: 64,
  async lookup(query: CompanyQuery): Promise<LookupOutcome<'company'>> {
    if (query.domain.split('.')[0] !== 'match') return { type: 'miss', cost: 0 };
    return found({
      name: 'Sandbox Company',
      domain: query.domain,
      description: 'A company the sandbox always finds.',
      employee_count: 120,
      founded: 2015,
      industry: 'Software',
      location: 'Berlin, Germany',
      technologies: ['Google Workspace'],
      social: { linkedin: 'https://www.linkedin.com/company/sandbox' },
      language: 'en',
    });
  },
};

const refuse = (): Promise<never> => Promise.reject(new Error('the sandbox makes no network call'));

/** A fresh sandbox enricher (memory cache; fetch and DNS refuse, and no adapter asks for them). */
export function createSandboxEnricher(options: { now?: () => number } = {}): Enricher {
  return createEnricher({
    adapters: [sandboxPeople, sandboxCompanies],
    fetch: refuse as typeof fetch,
    dns: { resolveMx: refuse, resolveTxt: refuse },
    ...(options.now ? { now: options.now } : {}),
  });
}
