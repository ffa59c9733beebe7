import { getDomain } from 'tldts';

// The input is already a validated host name: skip tldts's URL parsing and validation.
const TLDTS_OPTIONS = {
  extractHostname: false,
  validateHostname: false,
  detectIp: false,
  mixedInputs: false,
  // ICANN suffixes only: a list entry under a private suffix (0-mailer.dynv6.net) still matches
  // its subdomains, and a parent such as blogspot.com is never reached by accident.
  allowPrivateDomains: false,
} as const;

/**
 * The registrable domain of a host name by the Public Suffix List (`a.b.example.co.uk` →
 * `example.co.uk`); the name itself when it is a public suffix or has no registrable part.
 */
export function registrableDomain(domain: string): string {
  const first = domain.indexOf('.');
  // Two labels: the name is its own registrable domain or a public suffix; either way the chain
  // is just the name, so the PSL lookup is skipped on the common path.
  if (first === -1 || domain.indexOf('.', first + 1) === -1) return domain;
  const registrable = getDomain(domain, TLDTS_OPTIONS);
  return registrable !== null && domain.endsWith(registrable) ? registrable : domain;
}

/** Anything with a `has` lookup: a Set of domains or a Map keyed by domain. */
export interface DomainLookup {
  has(domain: string): boolean;
}

/**
 * The first of `domain` and its parents, down to its registrable domain, found in `first` or
 * `second`; null when none is. `x.y.mailinator.com` tries `x.y.mailinator.com`,
 * `y.mailinator.com`, `mailinator.com`, and never a public suffix such as `com` or `co.uk`.
 */
export function findInChain(domain: string, first: DomainLookup, second?: DomainLookup): string | null {
  let candidate = domain;
  for (;;) {
    if (first.has(candidate) || second?.has(candidate)) {
      // The Public Suffix List is consulted only on a hit (rare), so a miss costs a few Set
      // lookups: a parent counts only when it is at or below the registrable domain.
      return candidate === domain || candidate.length >= registrableDomain(domain).length ? candidate : null;
    }
    const dot = candidate.indexOf('.');
    // The next parent would be a single label (a TLD): no list entry can be one.
    if (dot === -1 || candidate.indexOf('.', dot + 1) === -1) return null;
    candidate = candidate.slice(dot + 1);
  }
}
