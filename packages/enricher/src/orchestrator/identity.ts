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
  private known: Record<KeyType, Set<string>> = {
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

  /** A copy to try candidates on without changing this gate. */
  clone(): IdentityGate {
    const copy = new IdentityGate(this.kind, this.query);
    for (const type of ['email', 'profile', 'name'] as const) copy.known[type] = new Set(this.known[type]);
    return copy;
  }

  /**
   * Admits the candidates of one answer together. When two of them would each pass but
   * contradict each other (two people of the same name at the company, different emails), the
   * answer is ambiguous and none is admitted: guessing one would attach a stranger's data.
   * Returns the admitted candidates.
   */
  admitAll<K extends AdapterKind>(candidates: readonly Candidate<K>[]): Candidate<K>[] {
    const passing = candidates.filter((candidate) => this.clone().admit(candidate));
    const trial = this.clone();
    if (!passing.every((candidate) => trial.admit(candidate))) return [];
    for (const candidate of passing) this.admit(candidate);
    return passing;
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
