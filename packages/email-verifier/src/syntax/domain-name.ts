import { ASCII_FLAGS, DIGIT, LDH } from './char-classes.js';
import { type SyntaxFailure, showChar } from './problems.js';

/** RFC 1035 §2.3.4 */
export const MAX_LABEL_OCTETS = 63;
/** RFC 5321 §4.5.3.1.2 */
export const MAX_DOMAIN_OCTETS = 255;

// Accepts a subset of valid names (the top-level label starts with a letter) in native code; it
// cannot backtrack catastrophically, since no label can contain the dot that ends it.
const PLAIN_DOMAIN = /^(?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z](?:[a-z0-9-]{0,61}[a-z0-9])?$/i;

/**
 * Checks an ASCII domain (A-labels, any case) against the RFC 5321 `Domain` grammar: dot-separated
 * LDH labels of 1..63 characters without a leading or trailing hyphen, at least two labels, and a
 * top-level label that is not all digits (an IP address belongs in an address literal).
 * Returns null when valid. The overall length limit is the caller's to check.
 */
export function checkDomainName(domain: string): SyntaxFailure | null {
  return PLAIN_DOMAIN.test(domain) ? null : scanDomainName(domain);
}

/** checkDomainName without the regex fast path: the scanner that explains every failure. */
export function scanDomainName(domain: string): SyntaxFailure | null {
  const n = domain.length;
  let labelStart = 0;
  let labels = 0;
  let allDigits = true;
  for (let i = 0; i <= n; i++) {
    const c = i < n ? domain.charCodeAt(i) : 0x2e;
    if (c === 0x2e) {
      const length = i - labelStart;
      if (length === 0) {
        if (i === 0) return { problem: 'domain_leading_dot', detail: 'The domain starts with a dot' };
        if (i === n) {
          return {
            problem: 'domain_trailing_dot',
            detail: 'The domain ends with a dot; write it without the root dot',
          };
        }
        return { problem: 'domain_empty_label', detail: 'The domain has two consecutive dots' };
      }
      if (length > MAX_LABEL_OCTETS) {
        return {
          problem: 'domain_label_too_long',
          detail: `The domain label "${domain.slice(labelStart, i)}" is ${length} characters long; the limit is ${MAX_LABEL_OCTETS}`,
        };
      }
      if (domain.charCodeAt(labelStart) === 0x2d || domain.charCodeAt(i - 1) === 0x2d) {
        return {
          problem: 'domain_label_hyphen',
          detail: `The domain label "${domain.slice(labelStart, i)}" starts or ends with a hyphen`,
        };
      }
      labels++;
      labelStart = i + 1;
      if (i < n) allDigits = true;
      continue;
    }
    const flags = c < 128 ? (ASCII_FLAGS[c] as number) : 0;
    if ((flags & LDH) === 0) return invalidDomainCharacter(domain, i);
    if ((flags & DIGIT) === 0) allDigits = false;
  }
  if (labels < 2) {
    return {
      problem: 'domain_single_label',
      detail: `The domain "${domain}" has a single label; a mail domain needs at least two (like example.com)`,
    };
  }
  if (allDigits) {
    return {
      problem: 'domain_numeric_tld',
      detail:
        'The top-level domain is all digits; an IP address must be written as an address literal like [192.0.2.1]',
    };
  }
  return null;
}

/** The failure for a character that cannot appear in a domain name. */
export function invalidDomainCharacter(domain: string, index: number): SyntaxFailure {
  const ch = String.fromCodePoint(domain.codePointAt(index) as number);
  if (ch === '(' || ch === ')') {
    return {
      problem: 'comment',
      detail: 'Comments in parentheses are not allowed in an envelope address (RFC 5321)',
    };
  }
  return {
    problem: 'domain_invalid_character',
    detail: `The domain contains ${showChar(ch)}; only letters, digits, hyphens and dots are allowed`,
  };
}
