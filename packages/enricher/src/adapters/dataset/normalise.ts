import { getDomain } from 'tldts';

/**
 * Keys the dataset index stores and looks up by, normalised the same way on import and on
 * lookup so a query finds the row whichever way either was written.
 */

/** Lower-cased, trimmed email, or null when it is not `local@domain.tld`. */
export function normaliseEmail(text: string): string | null {
  const email = text.trim().toLowerCase();
  return /^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(email) ? email : null;
}

/** The registrable domain (Public Suffix List) of a domain, host, URL or email; null if none. */
export function registrableDomain(text: string): string | null {
  const value = text.trim().toLowerCase();
  if (value === '') return null;
  const host = value.includes('@') && !value.includes('/') ? value.slice(value.lastIndexOf('@') + 1) : value;
  return getDomain(host) ?? null;
}

/** A name as a key: Unicode NFC, whitespace collapsed, case folded. */
export function nameKey(text: string): string {
  return text.normalize('NFC').trim().replace(/\s+/g, ' ').toLowerCase();
}

/**
 * A profile URL as a key: a LinkedIn-style `/in/slug` on any linkedin.com host becomes
 * `https://www.linkedin.com/in/slug` (slug lower-cased, as LinkedIn treats it); any other URL
 * keeps its host (lower-cased) and path without query, fragment or trailing slash. Null when the
 * text is not an http(s) URL.
 */
export function canonicalProfileUrl(text: string): string | null {
  const raw = text.trim();
  let url: URL;
  try {
    url = new URL(/^[a-z][a-z0-9+.-]*:\/\//i.test(raw) ? raw : `https://${raw}`);
  } catch {
    return null;
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return null;
  const host = url.hostname.toLowerCase();
  const path = url.pathname.replace(/\/+$/, '');
  if (host === 'linkedin.com' || host.endsWith('.linkedin.com')) {
    const slug = /^\/in\/([^/]+)/.exec(path)?.[1];
    if (slug) return `https://www.linkedin.com/in/${decodeURIComponent(slug).toLowerCase()}`;
  }
  return `https://${host}${path}`;
}
