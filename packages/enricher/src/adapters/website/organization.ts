import { getDomain } from 'tldts';
import type { LdOrganization } from './jsonld.js';
import { pageKindOf } from './subpages.js';

/**
 * Which schema.org Organization on a site is the queried company's own. Pages describe other
 * organisations too: a company page on a social network or a directory describes the company it
 * lists, an article its publisher and the firms it mentions. Only an organisation tied to the
 * queried registrable domain counts: its `url` or `@id` names the site itself (its root or about
 * page on that domain); or, its own url pointing nowhere else, its `sameAs` or logo is on that
 * domain, or it is the page's one publisher and its name agrees with the site's other signals (the
 * site speaking as itself). Everything else is ignored.
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

/** Whether a URL names a site itself (its root, a language root, or its about page), not a page on it. */
function namesSite(raw: string, base: string): boolean {
  try {
    const kind = pageKindOf(new URL(raw, base).href);
    return kind === 'home' || kind === 'about';
  } catch {
    return false;
  }
}

function tie(
  org: LdOrganization,
  domain: string,
  base: string,
  publisherAgrees: (name: string) => boolean,
): OwnershipTie | null {
  const on = (raw: string | undefined) => registrableDomainOf(raw, base) === domain;
  // A url or @id deeper in the site (linkedin.com/company/beta, medium.com/a-publication) is a
  // page about someone the site lists or hosts, not the site itself.
  const identifies = (raw: string | undefined) => raw !== undefined && on(raw) && namesSite(raw, base);
  if (identifies(org.url) || identifies(org.id)) return 'identity';
  const pointsElsewhere = [org.url, org.id].some(
    (raw) => raw !== undefined && !on(raw) && registrableDomainOf(raw, base) !== null,
  );
  // Its url is elsewhere, or a page deeper in this site (a listed company, a hosted publication).
  if (pointsElsewhere || on(org.url) || on(org.id)) return null;
  if (org.sameAs.some(on) || on(org.logo)) return 'link';
  if (org.via === 'publisher' && org.name !== undefined && publisherAgrees(org.name)) return 'publisher';
  return null;
}

const RANK: Record<OwnershipTie, number> = { identity: 0, link: 1, publisher: 2 };

/**
 * The queried company's organisation among those a site declares, with how it is tied to the
 * domain, or undefined. `base` resolves relative URLs (the page the nodes came from);
 * `agreesWithSite` says whether a publisher's name agrees with what else the page says of its
 * site (og:site_name, application-name, the logo's alt text, the domain's label).
 */
export function ownOrganization(
  orgs: readonly LdOrganization[],
  domain: string,
  base: string,
  agreesWithSite: (name: string) => boolean = () => false,
): { org: LdOrganization; tie: OwnershipTie } | undefined {
  const publishers = new Set(orgs.filter((o) => o.via === 'publisher').map((o) => o.name ?? o.id ?? o.url));
  // Only the page's one publisher, and only when it agrees with the site's other signals: a
  // press-release wire names the issuing company as publisher, a platform the publication it hosts.
  const publisherAgrees = (name: string) => publishers.size === 1 && agreesWithSite(name);
  let best: { org: LdOrganization; tie: OwnershipTie } | undefined;
  for (const org of orgs) {
    if (org.name === undefined) continue;
    const found = tie(org, domain, base, publisherAgrees);
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
