import { domainToASCII } from 'node:url';
import { ServiceError } from '@svc/core';
import { checkAddressLiteral } from './address-literal.js';
import { ASCII_FLAGS, codePointName, isControl, isWhiteSpace, LDH } from './char-classes.js';
import { checkDomainName, invalidDomainCharacter, MAX_DOMAIN_OCTETS } from './domain-name.js';
import { checkLocalPart, MAX_LOCAL_OCTETS } from './local-part.js';
import type { SyntaxFailure, SyntaxProblem } from './problems.js';
import { checkIdnaIgnored, checkLocalCharacters, describeCodePoint } from './unicode-safety.js';

/** RFC 5321 §4.5.3.1.3 (a 256-octet path minus its angle brackets). */
export const MAX_ADDRESS_OCTETS = 254;

// Nothing longer can be valid (the A-label form is never shorter than the characters it encodes
// by more than the ignorable code points UTS #46 drops), and it bounds the work on hostile input.
const MAX_INPUT_CHARS = 4 * MAX_ADDRESS_OCTETS;

/** Options of parseAddress. */
export interface ParseAddressOptions {
  /**
   * Accept non-ASCII local parts (RFC 6531, `δοκιμή@example.com`). Such an address can only be
   * delivered by a server that advertises SMTPUTF8, so the result says `requiresSmtpUtf8: true`.
   * @default false
   */
  allowUtf8LocalPart?: boolean;
}

/** A syntactically valid envelope address, split and normalised. */
export interface ParsedAddress {
  /**
   * The local part as given, case kept (only the receiving server may fold it). A non-ASCII local
   * part is in Unicode Normalization Form C, so composed and decomposed spellings (`é` as one code
   * point or as `e` plus a combining accent) give the same address.
   */
  local: string;
  /** The domain as given, lowercased (may hold U-labels such as `bücher.de`). */
  domain: string;
  /** The domain in A-labels (`xn--bcher-kva.de`), lowercased; what DNS and SMTP use. */
  asciiDomain: string;
  /** `local@asciiDomain`: the (NFC) local part, "@", the A-label domain; what goes on the wire. */
  normalized: string;
  /** True for `[192.0.2.1]` / `[IPv6:…]` domains: valid syntax, but no MX lookup applies. */
  isAddressLiteral: boolean;
  /** True when the local part as sent (NFC) has non-ASCII characters (only with allowUtf8LocalPart). */
  requiresSmtpUtf8: boolean;
}

/** The outcome of parseAddress: the address, or why it is not one. */
export type ParseAddressResult =
  | { ok: true; address: ParsedAddress }
  | { ok: false; reason: 'invalid_syntax'; problem: SyntaxProblem; detail: string };

/**
 * Parses an envelope address (RFC 5321 `Mailbox`, RFC 6531 with the option) without throwing.
 * The string must be the bare address: no display name, no angle brackets, no surrounding spaces.
 */
export function parseAddress(input: string, options?: ParseAddressOptions): ParseAddressResult {
  if (typeof input !== 'string')
    return fail({ problem: 'not_a_string', detail: `Expected a string, got ${describe(input)}` });
  const allowUtf8 = options?.allowUtf8LocalPart === true;
  const n = input.length;
  if (n === 0) return fail({ problem: 'empty', detail: 'The address is empty' });
  if (n > MAX_INPUT_CHARS) {
    return fail({
      problem: 'address_too_long',
      detail: `The address is ${n} characters long; the limit is ${MAX_ADDRESS_OCTETS} octets`,
    });
  }

  // Most real addresses are a plain dot-atom at a lowercase LDH domain: one native regex test
  // proves the whole grammar for them, leaving only the length limits and the A-label check.
  if (PLAIN_ADDRESS.test(input)) {
    const plain = plainAddress(input);
    if (plain !== null) return plain;
  }

  // Nearly every other address is printable ASCII, which one native regex test (no backtracking)
  // proves; only other input pays for the character-by-character scan and its precise messages.
  let at: number;
  let localNonAscii = false;
  let domainNonAscii = false;
  if (!NOT_PRINTABLE_ASCII.test(input)) {
    at = input.lastIndexOf('@');
  } else {
    const scan = scanSpecialCharacters(input);
    if ('problem' in scan) return fail(scan);
    ({ at, localNonAscii, domainNonAscii } = scan);
  }
  if (isWhiteSpace(input.charCodeAt(0)) || isWhiteSpace(input.charCodeAt(n - 1))) {
    return fail({
      problem: 'surrounding_whitespace',
      detail: 'The address starts or ends with white space; trim it before verifying',
    });
  }
  if (at === -1) return fail(missingAt(input));
  if (at === 0) return fail({ problem: 'empty_local_part', detail: 'The local part (before "@") is empty' });
  if (at === n - 1) return fail({ problem: 'empty_domain', detail: 'The domain (after "@") is empty' });

  let local = input.slice(0, at);
  let localAsGiven = true;
  const localFailure = checkLocalPart(local, allowUtf8);
  if (localFailure !== null) return fail(localFailure);
  if (localNonAscii) {
    // Reached only with allowUtf8LocalPart: checkLocalPart refused non-ASCII text otherwise.
    const characterFailure = checkLocalCharacters(local);
    if (characterFailure !== null) return fail(characterFailure);
    // RFC 6532 §3.1 asks for NFC; the server compares bytes, so one spelling must be chosen.
    const nfc = local.normalize('NFC');
    localAsGiven = nfc === local;
    if (!localAsGiven) {
      // What goes on the wire is the NFC form, so it must pass the grammar too: NFC maps some
      // code points to ASCII (U+037E GREEK QUESTION MARK is canonically ";", not atext).
      const normalizedFailure = checkLocalPart(nfc, allowUtf8) ?? checkLocalCharacters(nfc);
      if (normalizedFailure !== null) return fail(afterNormalization(nfc, normalizedFailure));
      // An all-ASCII result (U+212A KELVIN SIGN is canonically "K") needs no SMTPUTF8.
      localNonAscii = NOT_ASCII.test(nfc);
    }
    local = nfc;
  }
  const localOctets = localNonAscii ? Buffer.byteLength(local, 'utf8') : local.length;
  if (localOctets > MAX_LOCAL_OCTETS) {
    return fail({
      problem: 'local_too_long',
      detail: `The local part is ${localOctets} octets long; the limit is ${MAX_LOCAL_OCTETS} (RFC 5321)`,
    });
  }

  const given = input.slice(at + 1);
  let domain = domainNonAscii || HAS_UPPER.test(given) ? given.toLowerCase() : given;
  let asciiDomain = domain;
  let isAddressLiteral = false;
  if (given.charCodeAt(0) === 0x5b) {
    const literalFailure = checkAddressLiteral(given);
    if (literalFailure !== null) return fail(literalFailure);
    isAddressLiteral = true;
    // The tag is case-insensitive; RFC 5321 spells it "IPv6", so the normal form does too.
    if (domain.startsWith('[ipv6:')) domain = asciiDomain = `[IPv6:${domain.slice(6)}`;
  } else {
    if (domainNonAscii) {
      const idn = toAsciiDomain(domain);
      if (typeof idn !== 'string') return fail(idn);
      asciiDomain = idn;
    }
    const domainFailure = checkDomainName(asciiDomain);
    if (domainFailure !== null) return fail(domainFailure);
    // A-labels typed as ASCII must still be valid Punycode (`xn--a` is not).
    if (!domainNonAscii && asciiDomain.includes('xn--') && domainToASCII(asciiDomain) === '') {
      return fail(invalidIdn(domain));
    }
  }
  if (asciiDomain.length > MAX_DOMAIN_OCTETS) {
    return fail({
      problem: 'domain_too_long',
      detail: `The domain is ${asciiDomain.length} octets long; the limit is ${MAX_DOMAIN_OCTETS} (RFC 5321)`,
    });
  }
  const total = localOctets + 1 + asciiDomain.length;
  if (total > MAX_ADDRESS_OCTETS) {
    return fail({
      problem: 'address_too_long',
      detail: `The address is ${total} octets long; the limit is ${MAX_ADDRESS_OCTETS} (RFC 5321)`,
    });
  }
  return {
    ok: true,
    address: {
      local,
      domain,
      asciiDomain,
      // Most inputs are already in normal form: reuse the string instead of building a copy.
      normalized: asciiDomain === given && localAsGiven ? input : `${local}@${asciiDomain}`,
      isAddressLiteral,
      requiresSmtpUtf8: localNonAscii,
    },
  };
}

/** Like parseAddress, but throws `ServiceError('unprocessable')` with the detail as its message. */
export function parseAddressOrThrow(input: string, options?: ParseAddressOptions): ParsedAddress {
  const result = parseAddress(input, options);
  if (result.ok) return result.address;
  throw new ServiceError('unprocessable', result.detail);
}

// local-part.ts's PLAIN_DOT_ATOM, "@", then domain-name.ts's PLAIN_DOMAIN. `.` and `@` are not atext
// and no label contains a dot, so the match cannot backtrack catastrophically, and it implies
// everything the general path checks except lengths, lower case and Punycode validity.
const PLAIN_ADDRESS =
  /^[a-z0-9!#$%&'*+/=?^_`{|}~-]+(?:\.[a-z0-9!#$%&'*+/=?^_`{|}~-]+)*@(?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z](?:[a-z0-9-]{0,61}[a-z0-9])?$/i;

// The rest of parseAddress for input PLAIN_ADDRESS matched. Null sends the input down the general
// path: it breaks a length limit, has an upper-case domain to fold, or an A-label to check there.
function plainAddress(input: string): ParseAddressResult | null {
  const at = input.indexOf('@');
  if (at > MAX_LOCAL_OCTETS || input.length > MAX_ADDRESS_OCTETS) return null;
  const domain = input.slice(at + 1);
  if (HAS_UPPER.test(domain) || (domain.includes('xn--') && domainToASCII(domain) === '')) return null;
  return {
    ok: true,
    address: {
      local: input.slice(0, at),
      domain,
      asciiDomain: domain,
      normalized: input,
      isAddressLiteral: false,
      requiresSmtpUtf8: false,
    },
  };
}

const NOT_PRINTABLE_ASCII = /[^\x20-\x7e]/;
const NOT_ASCII = /\P{ASCII}/u;
const HAS_UPPER = /[A-Z]/;

interface ScanResult {
  at: number;
  localNonAscii: boolean;
  domainNonAscii: boolean;
}

// The slow path: finds control characters (SMTP command injection) and unpaired surrogates (not
// encodable as UTF-8), and where non-ASCII text sits relative to the last '@'.
function scanSpecialCharacters(input: string): ScanResult | SyntaxFailure {
  let at = -1;
  let localNonAscii = false;
  let domainNonAscii = false;
  for (let i = 0; i < input.length; i++) {
    const c = input.charCodeAt(i);
    if (c < 128) {
      if (c < 0x20 || c === 0x7f) return controlFailure(c, i);
      if (c === 0x40) {
        at = i;
        localNonAscii ||= domainNonAscii;
        domainNonAscii = false;
      }
      continue;
    }
    if (isControl(c)) return controlFailure(c, i);
    domainNonAscii = true;
    if (c >= 0xd800 && c <= 0xdfff) {
      const next = i + 1 < input.length ? input.charCodeAt(i + 1) : 0;
      if (c > 0xdbff || next < 0xdc00 || next > 0xdfff) {
        return {
          problem: 'invalid_unicode',
          detail: `The address contains an unpaired surrogate (${codePointName(c)}) at position ${i + 1}, which is not valid Unicode`,
        };
      }
      i++;
    }
  }
  return { at, localNonAscii, domainNonAscii };
}

// IDNA via the WHATWG URL host parser (UTS #46, non-transitional, as browsers do). Its ASCII input
// is limited to LDH and dots first, because the host parser would percent-decode and accept
// characters that are not valid in a mail domain.
function toAsciiDomain(domain: string): string | SyntaxFailure {
  for (let i = 0; i < domain.length; i++) {
    const c = domain.charCodeAt(i);
    if (c < 128 && c !== 0x2e && ((ASCII_FLAGS[c] as number) & LDH) === 0)
      return invalidDomainCharacter(domain, i);
  }
  const ignored = checkIdnaIgnored(domain);
  if (ignored !== null) return ignored;
  const ascii = domainToASCII(domain);
  return ascii === '' ? invalidIdn(domain) : ascii;
}

// A failure of the NFC form, said in terms of what the user typed.
function afterNormalization(nfc: string, failure: SyntaxFailure): SyntaxFailure {
  return {
    problem: failure.problem,
    detail: `In Unicode normal form (NFC), the form that would be sent, the local part is ${JSON.stringify(nfc)}, which is not valid: ${failure.detail}`,
  };
}

function missingAt(input: string): SyntaxFailure {
  // A full-width keyboard (CJK input methods) types "＠", which looks like the separator.
  const lookalike = LOOKALIKE_AT.exec(input);
  const hint =
    lookalike === null
      ? ''
      : `; it has "${lookalike[0]}" ${describeCodePoint(lookalike[0].charCodeAt(0))} instead, type the ASCII "@"`;
  return { problem: 'missing_at', detail: `The address has no "@" between local part and domain${hint}` };
}

const LOOKALIKE_AT = /[\uFE6B\uFF20]/;

function invalidIdn(domain: string): SyntaxFailure {
  return {
    problem: 'domain_invalid_idn',
    detail: `The domain "${domain}" is not a valid internationalised domain name (IDNA)`,
  };
}

function controlFailure(code: number, index: number): SyntaxFailure {
  const where = `at position ${index + 1}`;
  const name =
    code === 0x0d
      ? 'a carriage return (CR)'
      : code === 0x0a
        ? 'a line feed (LF)'
        : code === 0x00
          ? 'a NUL character'
          : `the control character ${codePointName(code)}`;
  const why =
    code === 0x0d || code === 0x0a
      ? 'line breaks would let the address inject SMTP commands'
      : 'control characters are never part of an address';
  return { problem: 'control_character', detail: `The address contains ${name} ${where}; ${why}` };
}

function describe(value: unknown): string {
  return value === null ? 'null' : typeof value;
}

function fail(failure: SyntaxFailure): ParseAddressResult {
  return { ok: false, reason: 'invalid_syntax', problem: failure.problem, detail: failure.detail };
}
