import { getDomain } from 'tldts';
import type { LdOrganization } from './jsonld.js';

/**
 * Which schema.org Organization on a site is the queried company's own. Pages describe other
 * organisations too: a company page on a social network or a directory describes the company it
 * lists, an article its publisher and the firms it mentions. Only an organisation tied to the
 * queried registrable domain counts: its `url`, `@id`, `sameAs` or logo is on that domain, or it
 * is the page's one publisher (the site speaking as itself). Everything else is ignored.
 */

/** The registrable domain of a URL (resolved against `base`), or null. */
export function registrableDomainOf(raw: string | undefined, base: string): string | null {
  if (!raw) return null;
  try {
    const url = new URL(raw, base);
    if (url.protocol !== 'http:' && url.protocol !== 'https:') return null;
    return getDomain(url.hostname) ?? null;
  } catch {
    return null;
  }
}

/** How an organisation is tied to the queried domain: its identity (url, @id), another link of its own, or as the page's publisher. */
export type OwnershipTie = 'identity' | 'link' | 'publisher';

function tie(
  org: LdOrganization,
  domain: string,
  base: string,
  singlePublisher: boolean,
): OwnershipTie | null {
  const on = (raw: string | undefined) => registrableDomainOf(raw, base) === domain;
  if (on(org.url) || on(org.id)) return 'identity';
  if (org.sameAs.some(on) || on(org.logo)) return 'link';
  if (singlePublisher && org.via === 'publisher') return 'publisher';
  return null;
}

const RANK: Record<OwnershipTie, number> = { identity: 0, link: 1, publisher: 2 };

/**
 * The queried company's organisation among those a site declares, with how it is tied to the
 * domain, or undefined. `base` resolves relative URLs (the page the nodes came from).
 */
export function ownOrganization(
  orgs: readonly LdOrganization[],
  domain: string,
  base: string,
): { org: LdOrganization; tie: OwnershipTie } | undefined {
  const publishers = new Set(orgs.filter((o) => o.via === 'publisher').map((o) => o.name ?? o.id ?? o.url));
  const singlePublisher = publishers.size === 1;
  let best: { org: LdOrganization; tie: OwnershipTie } | undefined;
  for (const org of orgs) {
    if (org.name === undefined) continue;
    const found = tie(org, domain, base, singlePublisher);
    if (found && (!best || RANK[found] < RANK[best.tie])) best = { org, tie: found };
  }
  return best;
}

/** Merges the fields of the nodes describing the same organisation (same name or `@id`), the chosen one first. */
export function mergeOrganizations(primary: LdOrganization, all: readonly LdOrganization[]): LdOrganization {
  const same = all.filter(
    (o) =>
      o === primary ||
      (o.name !== undefined && o.name === primary.name) ||
      (o.id !== undefined && o.id === primary.id),
  );
  const merged: LdOrganization = { ...primary, sameAs: [] };
  for (const org of same) {
    for (const key of Object.keys(org) as (keyof LdOrganization)[]) {
      if (key === 'sameAs') merged.sameAs.push(...org.sameAs);
      else if (merged[key] === undefined) (merged as unknown as Record<string, unknown>)[key] = org[key];
    }
  }
  return merged;
}
