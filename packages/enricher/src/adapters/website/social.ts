import { normaliseProfileUrl } from '../../query.js';
import { compact } from './company-name.js';

import data from './social-networks.json' with { type: 'json' };

/**
 * Social profile links: which network a URL belongs to and whether it names a profile. What a
 * profile URL looks like on each network is data (`social-networks.json`): a path pattern with a
 * `handle`, and the handles that are the platform's own pages (login, help, pricing, topics, …).
 */

interface Network {
  id: string;
  hosts: string[];
  /** The canonical host profiles are written with; absent: the link's own host. */
  host?: string;
  profile: RegExp;
  reserved: Set<string>;
}

const NETWORKS: Network[] = data.networks.map((n) => ({
  id: n.id,
  hosts: n.hosts,
  ...('host' in n && typeof n.host === 'string' ? { host: n.host } : {}),
  profile: new RegExp(n.profile),
  reserved: new Set([...data.reserved, ...n.reserved].map((h) => h.toLowerCase())),
}));

/** A LinkedIn person profile (`/in/slug`) in the canonical form queries use (`query.ts`), or null. */
export function personProfile(raw: string): string | null {
  const url = parse(raw);
  if (!url || !hostIs(url.hostname, 'linkedin.com') || !/^\/in\/[^/]+/i.test(url.pathname)) return null;
  try {
    return normaliseProfileUrl(raw);
  } catch {
    return null;
  }
}

function parse(raw: string): URL | null {
  try {
    const url = new URL(raw);
    return url.protocol === 'https:' || url.protocol === 'http:' ? url : null;
  } catch {
    return null;
  }
}

function hostIs(hostname: string, domain: string): boolean {
  const host = hostname.toLowerCase();
  return host === domain || host.endsWith(`.${domain}`);
}

/** The network's own host, or a www., mobile or country variant of it (de.linkedin.com, de-de.facebook.com), not another service on its domain (blog.github.com). */
function profileHost(hostname: string, domain: string): boolean {
  const host = hostname.toLowerCase();
  if (host === domain) return true;
  if (!host.endsWith(`.${domain}`)) return false;
  return /^(?:www|m|mobile|[a-z]{2}(?:-[a-z]{2})?)$/.test(host.slice(0, -domain.length - 1));
}

/** The path a link names: a legacy `#!/acme` fragment (old Twitter/Facebook links) is the path. */
function profilePath(url: URL): string {
  if ((url.pathname === '/' || url.pathname === '') && url.hash.startsWith('#!')) {
    const path = url.hash.slice(2).split('?')[0]!;
    return path.startsWith('/') ? path : `/${path}`;
  }
  return url.pathname;
}

/** The network, handle and canonical profile URL (https, no query, no trailing slash) of a link, or null. */
export function socialProfile(raw: string): { network: string; handle: string; url: string } | null {
  const url = parse(raw);
  if (!url) return null;
  for (const network of NETWORKS) {
    if (!network.hosts.some((h) => hostIs(url.hostname, h))) continue;
    if (!network.hosts.some((h) => profileHost(url.hostname, h))) return null;
    const match = network.profile.exec(profilePath(url));
    const handle = match?.groups?.handle ?? match?.groups?.pageid;
    if (!match || handle === undefined || network.reserved.has(handle.toLowerCase())) return null;
    const host = network.host ?? url.hostname.toLowerCase();
    const path = match[0].replace(/\/+$/, '');
    return { network: network.id, handle, url: `https://${host}${path}` };
  }
  return null;
}

/**
 * One profile per network from links in the order given (JSON-LD `sameAs` before page links):
 * the first whose handle agrees with one of `brand` (the company's name, its domain's label),
 * else the first; `unsure` links count only when their handle agrees (and then beat a first
 * that does not).
 */
export function socialProfiles(
  urls: Iterable<string>,
  brand: readonly string[] = [],
  /** Links found elsewhere on the page: taken only when their handle agrees with `brand`. */
  unsure: Iterable<string> = [],
): Record<string, string> {
  const wanted = brand.map(compact).filter((b) => b.length >= 2);
  const agrees = (handle: string) => {
    const h = compact(handle);
    return wanted.some((b) => h.includes(b) || (h.length >= 3 && b.includes(h)));
  };
  const first: Record<string, string> = {};
  const agreeing: Record<string, string> = {};
  for (const raw of urls) {
    const found = socialProfile(raw);
    if (!found) continue;
    first[found.network] ??= found.url;
    if (agreeing[found.network] === undefined && agrees(found.handle)) agreeing[found.network] = found.url;
  }
  for (const raw of unsure) {
    const found = socialProfile(raw);
    if (!found || !agrees(found.handle)) continue;
    first[found.network] ??= found.url;
    agreeing[found.network] ??= found.url;
  }
  return { ...first, ...agreeing };
}
