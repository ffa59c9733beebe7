import { domainToASCII } from 'node:url';
import { checkDomainName } from '../syntax/domain-name.js';
import { checkLocalPart } from '../syntax/local-part.js';

/** A list entry after validation, or why it was refused. */
export type EntryResult = { ok: true; value: string } | { ok: false; detail: string };

/**
 * Validates one user-supplied domain entry and returns it as lowercase A-labels (`Bücher.DE` →
 * `xn--bcher-kva.de`). An entry always covers its subdomains, so wildcards are refused rather
 * than guessed at.
 */
export function normalizeDomainEntry(value: unknown): EntryResult {
  if (typeof value !== 'string')
    return { ok: false, detail: `expected a domain string, got ${typeof value}` };
  const trimmed = value.trim();
  if (trimmed === '') return { ok: false, detail: 'the entry is empty' };
  if (trimmed.includes('*')) {
    return {
      ok: false,
      detail: `"${trimmed}" has a wildcard; write the domain alone, it covers its subdomains`,
    };
  }
  if (trimmed.includes('@')) return { ok: false, detail: `"${trimmed}" is an address, not a domain` };
  // biome-ignore lint/suspicious/noControlCharactersInRegex: the point is to find non-ASCII text
  const ascii = /^[\x00-\x7f]*$/.test(trimmed) ? trimmed.toLowerCase() : domainToASCII(trimmed);
  if (ascii === '') return { ok: false, detail: `"${trimmed}" is not a valid internationalised domain name` };
  const failure = checkDomainName(ascii);
  if (failure !== null) return { ok: false, detail: `"${trimmed}" is not a valid domain: ${failure.detail}` };
  return { ok: true, value: ascii };
}

/** Validates one user-supplied role local part and returns it lowercased. */
export function normalizeRoleEntry(value: unknown): EntryResult {
  if (typeof value !== 'string')
    return { ok: false, detail: `expected a local part string, got ${typeof value}` };
  const trimmed = value.trim().toLowerCase();
  if (trimmed === '') return { ok: false, detail: 'the entry is empty' };
  if (trimmed.includes('+')) {
    return {
      ok: false,
      detail: `"${trimmed}" has a "+"; +tags are removed before matching, so list the part before it`,
    };
  }
  const failure = trimmed.startsWith('"')
    ? { detail: 'quoted local parts cannot be listed' }
    : checkLocalPart(trimmed, true);
  if (failure !== null)
    return { ok: false, detail: `"${trimmed}" is not a valid local part: ${failure.detail}` };
  return { ok: true, value: trimmed };
}
