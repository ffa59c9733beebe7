import { normaliseProfileUrl } from '../../query.js';

/** Social profile links: which network a URL belongs to, and whether it names a profile (not a share button). */

interface Network {
  id: string;
  hosts: string[];
  /** The path must match to be a profile; share/intent/login paths do not. */
  profile: RegExp;
}

const NETWORKS: Network[] = [
  { id: 'linkedin', hosts: ['linkedin.com'], profile: /^\/(company|school|showcase)\/[^/]+/i },
  {
    id: 'x',
    hosts: ['twitter.com', 'x.com'],
    profile: /^\/(?!share|intent|home|search|hashtag|i\/)[A-Za-z0-9_]{1,15}\/?$/,
  },
  {
    id: 'facebook',
    hosts: ['facebook.com', 'fb.com'],
    profile: /^\/(?!sharer|share|dialog|plugins|login|tr\b)[^/?]+\/?$/i,
  },
  { id: 'instagram', hosts: ['instagram.com'], profile: /^\/(?!p\/|explore|accounts)[A-Za-z0-9_.]+\/?$/ },
  { id: 'youtube', hosts: ['youtube.com'], profile: /^\/(@[^/]+|c\/[^/]+|channel\/[^/]+|user\/[^/]+)\/?$/i },
  { id: 'github', hosts: ['github.com'], profile: /^\/(?!sponsors|features|about|login)[A-Za-z0-9-]+\/?$/ },
  { id: 'xing', hosts: ['xing.com'], profile: /^\/(pages|companies)\/[^/]+/i },
  { id: 'crunchbase', hosts: ['crunchbase.com'], profile: /^\/organization\/[^/]+/i },
  { id: 'tiktok', hosts: ['tiktok.com'], profile: /^\/@[^/]+\/?$/ },
  { id: 'mastodon', hosts: ['mastodon.social', 'fosstodon.org'], profile: /^\/@[^/]+\/?$/ },
  { id: 'bluesky', hosts: ['bsky.app'], profile: /^\/profile\/[^/]+\/?$/ },
];

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

/** The network and canonical profile URL (https, no query, no trailing slash) of a link, or null. */
export function socialProfile(raw: string): { network: string; url: string } | null {
  const url = parse(raw);
  if (!url) return null;
  for (const network of NETWORKS) {
    if (!network.hosts.some((h) => hostIs(url.hostname, h))) continue;
    if (!network.profile.test(url.pathname)) return null;
    const hostname = url.hostname.toLowerCase();
    // Country and mobile subdomains (de.linkedin.com, m.facebook.com) name the same profile as www.
    const host =
      network.id === 'x'
        ? 'x.com'
        : hostname.split('.').length > 2
          ? hostname.replace(/^(m|mobile|[a-z]{2})\./, 'www.')
          : hostname;
    const path = url.pathname.replace(/\/+$/, '');
    return { network: network.id, url: `https://${host}${path}` };
  }
  return null;
}

/** First profile per network, in the order given (JSON-LD `sameAs` before page links). */
export function socialProfiles(urls: Iterable<string>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const raw of urls) {
    const found = socialProfile(raw);
    if (found && out[found.network] === undefined) out[found.network] = found.url;
  }
  return out;
}
