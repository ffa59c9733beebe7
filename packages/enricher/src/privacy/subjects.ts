import type { AdapterKind, Candidate, PersonFields } from '../adapter.js';
import { normaliseEmail, normaliseName, normaliseProfileUrl, registrableDomain } from '../query.js';

/**
 * The identifiers a person candidate carries (its strong keys, normalised like queries), so a
 * cached outcome can be purged and a merged result suppressed when any of them is erased.
 */
export function candidateIdentifiers<K extends AdapterKind>(kind: K, candidate: Candidate<K>): string[] {
  if (kind !== 'person') return [];
  const fields = candidate.fields as Partial<PersonFields>;
  const out: string[] = [];
  // Adapter data is not trusted to be well formed: an identifier that does not normalise is skipped.
  const attempt = (make: () => string) => {
    try {
      out.push(make());
    } catch {}
  };
  if (fields.email) attempt(() => `email:${normaliseEmail(fields.email).email}`);
  if (fields.profile_url) attempt(() => `profile_url:${normaliseProfileUrl(fields.profile_url)}`);
  if (fields.full_name && fields.company_domain) {
    attempt(
      () =>
        `name:${registrableDomain(fields.company_domain)}:${normaliseName(fields.full_name).toLowerCase()}`,
    );
  }
  return out;
}
