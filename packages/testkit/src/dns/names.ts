import { domainToASCII } from 'node:url';

const LABEL = /^[a-z0-9_](?:[a-z0-9_-]{0,61}[a-z0-9_])?$/;

/**
 * Checks and normalises a domain name from the zones: lower case, no trailing dot, Unicode
 * converted to A-labels. Throws a TypeError naming `where` on anything a DNS message cannot carry.
 */
export function normalizeDomain(value: unknown, where: string, allowWildcard = false): string {
  if (typeof value !== 'string') {
    throw new TypeError(`${where} must be a domain name string, got ${describe(value)}`);
  }
  const trimmed = value.endsWith('.') ? value.slice(0, -1) : value;
  // Only non-ASCII input goes through IDNA; ASCII is checked label by label below so that
  // underscores (`_dmarc`, `_sip._tcp`) stay allowed.
  const ascii = /[^\x20-\x7e]/.test(trimmed) ? domainToASCII(trimmed) : trimmed.toLowerCase();
  const labels = ascii.split('.');
  const valid =
    ascii.length > 0 &&
    ascii.length <= 253 &&
    labels.every((label, index) => LABEL.test(label) || (allowWildcard && index === 0 && label === '*'));
  if (!valid) throw new TypeError(`${where} is not a valid domain name: ${JSON.stringify(value)}`);
  return ascii;
}

/** The lookup key of a name in a query: case-folded, trailing dot removed. */
export function queryKey(name: string): string {
  const lower = name.toLowerCase();
  return lower.endsWith('.') ? lower.slice(0, -1) : lower;
}

/** A short description of a bad value for error messages. */
export function describe(value: unknown): string {
  if (typeof value === 'string') return JSON.stringify(value);
  if (value === null || typeof value !== 'object') return String(value);
  return Array.isArray(value) ? 'an array' : 'an object';
}
