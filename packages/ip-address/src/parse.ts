import { formatIpv4, formatIpv6 } from './format.js';
import type { IpSyntaxRule, ParsedIp, ParsedIpv4, ParsedIpv6 } from './types.js';

// The longest valid text: ffff:ffff:ffff:ffff:ffff:ffff:255.255.255.255.
const MAX_LENGTH = 45;

const COLON = 58;
const DOT = 46;
const ZERO = 48;
const NINE = 57;

/** The explanation each rule adds after `"<input>" is not a valid IP address: `. */
export const IP_SYNTAX_MESSAGES: Readonly<Record<IpSyntaxRule, string>> = {
  not_a_string: 'an IP address must be a string',
  empty: 'the input is empty',
  too_long: `it is longer than ${MAX_LENGTH} characters`,
  whitespace: 'it contains whitespace',
  non_ascii: 'it contains non-ASCII characters (only ASCII digits, hex letters, "." and ":" are allowed)',
  cidr_suffix: 'a prefix length ("/n") is not allowed, pass a single address',
  zone_id: 'IPv6 zone ids ("%…") are not allowed',
  brackets: 'brackets are not allowed, pass the bare address',
  ipv4_characters: 'IPv4 parts must be plain decimal numbers (no hex, signs or other characters)',
  ipv4_parts: 'an IPv4 address must have exactly four decimal parts separated by dots',
  ipv4_empty_part: 'IPv4 parts must not be empty',
  ipv4_leading_zero: 'IPv4 parts must be decimal without leading zeros',
  ipv4_range: 'IPv4 parts must be between 0 and 255',
  ipv6_characters: 'IPv6 groups must be hex digits',
  ipv6_group_length: 'IPv6 groups must have 1 to 4 hex digits',
  ipv6_group_count: 'an IPv6 address must have eight groups, or fewer with one "::"',
  ipv6_colons: 'IPv6 groups must be separated by a single ":", with at most one "::"',
  ipv6_edge_colon: 'an IPv6 address must not start or end with a single ":"',
  ipv6_embedded_ipv4_position: 'an embedded IPv4 address must come last',
  ipv6_embedded_ipv4: 'the embedded IPv4 address is invalid',
};

/** Why the last parse failed; set only on failure so the success path allocates nothing extra. */
interface Failure {
  rule: IpSyntaxRule;
  /** For an invalid dotted quad inside IPv6: the IPv4 rule it broke. */
  embeddedRule: IpSyntaxRule | null;
}
const failure: Failure = { rule: 'empty', embeddedRule: null };

function fail(rule: IpSyntaxRule, embeddedRule: IpSyntaxRule | null = null): null {
  failure.rule = rule;
  failure.embeddedRule = embeddedRule;
  return null;
}

/**
 * Reads a strict dotted quad from text[start, end): four decimal parts 0..255 without leading zeros.
 * Returns the unsigned value, or -1 (the caller asks diagnoseIpv4 why, off the hot path).
 */
function readIpv4(text: string, start: number, end: number): number {
  let value = 0;
  let part = 0;
  let digits = 0;
  let dots = 0;
  for (let index = start; index < end; index++) {
    const code = text.charCodeAt(index);
    if (code >= ZERO && code <= NINE) {
      // A part may start with 0 only if it is exactly "0": never octal, never silently decimal.
      if (digits === 1 && part === 0) return -1;
      part = part * 10 + (code - ZERO);
      if (part > 255) return -1;
      digits++;
    } else if (code === DOT) {
      if (digits === 0 || dots === 3) return -1;
      value = value * 256 + part;
      part = 0;
      digits = 0;
      dots++;
    } else {
      return -1;
    }
  }
  if (digits === 0 || dots !== 3) return -1;
  return value * 256 + part;
}

/** The most useful rule a rejected dotted quad breaks, checked in order of how fundamental it is. */
function diagnoseIpv4(text: string): IpSyntaxRule {
  if (!/^[0-9.]*$/.test(text)) return 'ipv4_characters';
  const parts = text.split('.');
  if (parts.length !== 4) return 'ipv4_parts';
  if (parts.some((part) => part.length === 0)) return 'ipv4_empty_part';
  if (parts.some((part) => part.length > 1 && part.startsWith('0'))) return 'ipv4_leading_zero';
  return 'ipv4_range';
}

function hexValue(code: number): number {
  if (code >= ZERO && code <= NINE) return code - ZERO;
  const lower = code | 0x20;
  if (lower >= 97 && lower <= 102) return lower - 87;
  return -1;
}

/** Records a failure for a function that reports success as a boolean. */
function failed(rule: IpSyntaxRule, embeddedRule: IpSyntaxRule | null = null): false {
  fail(rule, embeddedRule);
  return false;
}

/**
 * Parses RFC 4291 §2.2 text into eight 16-bit groups written to `out`. No zone ids, no brackets;
 * an embedded dotted quad must be last and follows the strict IPv4 rule. Returns false on failure.
 */
export function readIpv6(text: string, out: number[]): boolean {
  const length = text.length;
  let count = 0;
  // Index in `out` where "::" stands, or -1 without one.
  let gap = -1;
  let index = 0;
  if (text.charCodeAt(0) === COLON) {
    if (text.charCodeAt(1) !== COLON) return failed('ipv6_edge_colon');
    gap = 0;
    index = 2;
  }
  while (index < length) {
    const groupStart = index;
    let word = 0;
    for (let digit = hexValue(text.charCodeAt(index)); digit >= 0; digit = hexValue(text.charCodeAt(index))) {
      word = ((word << 4) | digit) & 0xffff;
      index++;
    }
    const next = index < length ? text.charCodeAt(index) : -1;
    if (next === DOT) {
      // Decimal digits are hex digits too: only now do we know this group starts a dotted quad.
      if (text.indexOf(':', groupStart) >= 0) return failed('ipv6_embedded_ipv4_position');
      if (count > 6) return failed('ipv6_group_count');
      const value = readIpv4(text, groupStart, length);
      if (value < 0) return failed('ipv6_embedded_ipv4', diagnoseIpv4(text.slice(groupStart)));
      out[count++] = value >>> 16;
      out[count++] = value & 0xffff;
      break;
    }
    const digits = index - groupStart;
    if (digits === 0) return failed(next === COLON ? 'ipv6_colons' : 'ipv6_characters');
    if (digits > 4) return failed('ipv6_group_length');
    if (count === 8) return failed('ipv6_group_count');
    out[count++] = word;
    if (next === -1) break;
    if (next !== COLON) return failed('ipv6_characters');
    index++;
    if (text.charCodeAt(index) === COLON) {
      if (gap >= 0) return failed('ipv6_colons');
      gap = count;
      index++;
    } else if (index === length) {
      return failed('ipv6_edge_colon');
    }
  }
  if (gap < 0) return count === 8 || failed('ipv6_group_count');
  // "::" stands for at least one zero group.
  if (count > 7) return failed('ipv6_group_count');
  const shift = 8 - count;
  for (let from = count - 1; from >= gap; from--) out[from + shift] = out[from] ?? 0;
  for (let offset = 0; offset < shift; offset++) out[gap + offset] = 0;
  return true;
}

/** Finds why text failed, for the rules that apply to both families (checked before family-specific ones). */
function diagnoseCommon(text: string): IpSyntaxRule | null {
  if (text.length === 0) return 'empty';
  if (/\s/u.test(text)) return 'whitespace';
  // Unicode digits (١, ４) and look-alike dots must never be read as an address.
  for (let index = 0; index < text.length; index++) if (text.charCodeAt(index) > 0x7f) return 'non_ascii';
  if (text.includes('/')) return 'cidr_suffix';
  if (text.includes('%')) return 'zone_id';
  if (text.includes('[') || text.includes(']')) return 'brackets';
  if (text.length > MAX_LENGTH) return 'too_long';
  return null;
}

function ipv4(canonical: string, value: number): ParsedIpv4 {
  return { family: 4, canonical, value };
}

/**
 * Parses without throwing: the address, or null with the reason left in the module's failure slot
 * (read it with lastFailure()). The hot path of parseIp, normalizeIp and checkIp.
 */
export function parseOrNull(input: string): ParsedIp | null {
  const length = input.length;
  if (length === 0 || length > MAX_LENGTH) return fail(diagnoseCommon(input) ?? 'too_long');
  if (input.indexOf(':') < 0) {
    const value = readIpv4(input, 0, length);
    if (value < 0) return fail(diagnoseCommon(input) ?? diagnoseIpv4(input));
    // A strictly valid dotted quad is already canonical.
    return ipv4(input, value);
  }
  const words = [0, 0, 0, 0, 0, 0, 0, 0];
  if (!readIpv6(input, words)) {
    const common = diagnoseCommon(input);
    return common === null ? null : fail(common);
  }
  // ::ffff:a.b.c.d (RFC 4291 §2.5.5.2) is an IPv4 host: unwrap it so both spellings behave alike.
  if (
    words[0] === 0 &&
    words[1] === 0 &&
    words[2] === 0 &&
    words[3] === 0 &&
    words[4] === 0 &&
    words[5] === 0xffff
  ) {
    const value = (((words[6] ?? 0) << 16) | (words[7] ?? 0)) >>> 0;
    return ipv4(formatIpv4(value), value);
  }
  const parsed: ParsedIpv6 = { family: 6, canonical: formatIpv6(words), words };
  return parsed;
}

/** The rule the last failed parseOrNull call broke, and the IPv4 rule for a bad embedded dotted quad. */
export function lastFailure(): { rule: IpSyntaxRule; embeddedRule: IpSyntaxRule | null } {
  return { rule: failure.rule, embeddedRule: failure.embeddedRule };
}

/** Shows the input in an error message: quoted (so whitespace is visible) and cut to a sane length. */
export function quoteInput(input: string): string {
  const shown = input.length > 64 ? `${input.slice(0, 64)}…` : input;
  return JSON.stringify(shown);
}

/** The full error message for a rejected input. */
export function syntaxMessage(input: string, rule: IpSyntaxRule, embeddedRule: IpSyntaxRule | null): string {
  const detail =
    rule === 'ipv6_embedded_ipv4' && embeddedRule !== null
      ? `in the embedded IPv4 address, ${IP_SYNTAX_MESSAGES[embeddedRule]}`
      : IP_SYNTAX_MESSAGES[rule];
  return `${quoteInput(input)} is not a valid IP address: ${detail}`;
}

/** The message for a value that is not a string at all (untyped callers, JSON bodies). */
export function notAStringMessage(input: unknown): string {
  const type = input === null ? 'null' : Array.isArray(input) ? 'array' : typeof input;
  return `${type} is not a valid IP address: ${IP_SYNTAX_MESSAGES.not_a_string}`;
}
