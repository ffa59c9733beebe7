import * as query from '../../query.js';

/**
 * Keys the dataset index stores and looks up by. Rows are normalised by the same functions as
 * queries (`query.ts`), so a query finds the row whichever way either was written; these wrappers
 * answer null instead of throwing, and the importer names the line.
 */

function orNull<T>(make: () => T): T | null {
  try {
    return make();
  } catch {
    return null;
  }
}

/** Lower-cased email, or null when it is not an address with a registrable domain. */
export function normaliseEmail(text: string): string | null {
  return orNull(() => query.normaliseEmail(text).email);
}

/** The registrable domain (Public Suffix List) of a domain, host, URL or email; null if none. */
export function registrableDomain(text: string): string | null {
  const value = text.trim();
  const host = value.includes('@') && !value.includes('/') ? value.slice(value.lastIndexOf('@') + 1) : value;
  return orNull(() => query.registrableDomain(host));
}

/** A name as a key: Unicode NFC, whitespace collapsed, case folded. */
export function nameKey(text: string): string {
  return text.normalize('NFC').trim().replace(/\s+/g, ' ').toLowerCase();
}

/** A person's profile URL in the canonical form queries use, or null. */
export function canonicalProfileUrl(text: string): string | null {
  return orNull(() => query.normaliseProfileUrl(text));
}

/** A company's social link: any http(s) URL, trailing slash dropped; null otherwise. */
export function socialUrl(text: string): string | null {
  const url = orNull(() => new URL(text.trim()));
  if (!url || (url.protocol !== 'http:' && url.protocol !== 'https:')) return null;
  return url.href.replace(/\/+$/, '');
}
