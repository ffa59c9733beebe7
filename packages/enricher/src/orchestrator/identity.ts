import type { AdapterKind, Candidate, CompanyFields, EnrichmentQuery, PersonFields } from '../adapter.js';
import { normaliseEmail, normaliseName, normaliseProfileUrl, registrableDomain } from '../query.js';

type KeyType = 'email' | 'profile' | 'name';

function safely(make: () => string): string | undefined {
  try {
    return make();
  } catch {
    return undefined;
  }
}

/** A person candidate's strong keys, normalised as queries are (absent or malformed → undefined). */
function personKeys(fields: Partial<PersonFields>): Record<KeyType, string | undefined> {
  return {
    email: fields.email ? safely(() => normaliseEmail(fields.email).email) : undefined,
    profile: fields.profile_url ? safely(() => normaliseProfileUrl(fields.profile_url)) : undefined,
    name:
      fields.full_name && fields.company_domain
        ? safely(
            () =>
              `${registrableDomain(fields.company_domain)}:${normaliseName(fields.full_name).toLowerCase()}`,
          )
        : undefined,
  };
}

/**
 * The identity gate. A person candidate is merged only when one of its strong keys (email,
 * profile URL, or full name AND company domain together) equals a key already established — by
 * the query at first, then by candidates merged before it — and none of its keys contradicts an
 * established one (a different email for the same name is a namesake, not the same person).
 * A company candidate is merged when it names no domain or the queried registrable domain.
 */
export class IdentityGate {
  private readonly known: Record<KeyType, Set<string>> = {
    email: new Set(),
    profile: new Set(),
    name: new Set(),
  };

  constructor(
    private readonly kind: AdapterKind,
    private readonly query: EnrichmentQuery,
  ) {
    if (query.by === 'email') this.known.email.add(query.email);
    if (query.by === 'profile_url') this.known.profile.add(query.profile_url);
    if (query.by === 'domain_name') this.known.name.add(`${query.domain}:${query.full_name.toLowerCase()}`);
  }

  /** Whether the candidate is the same subject; when it is, its keys join the identity. */
  admit<K extends AdapterKind>(candidate: Candidate<K>): boolean {
    if (this.kind === 'company') {
      const domain = (candidate.fields as Partial<CompanyFields>).domain;
      if (domain === undefined) return true;
      const own = safely(() => registrableDomain(domain));
      return this.query.by === 'domain' && own === this.query.domain;
    }
    const keys = personKeys(candidate.fields as Partial<PersonFields>);
    let agrees = false;
    for (const type of ['email', 'profile', 'name'] as const) {
      const value = keys[type];
      if (value === undefined) continue;
      if (this.known[type].has(value)) agrees = true;
      else if (this.known[type].size > 0) return false;
    }
    if (!agrees) return false;
    for (const type of ['email', 'profile', 'name'] as const) {
      const value = keys[type];
      if (value !== undefined) this.known[type].add(value);
    }
    return true;
  }
}
