import { classificationMessage, classifyAddress, type EmbeddedIpv4, embeddedIpv4 } from './classify.js';
import { InvalidIpError, type IpRule } from './errors.js';
import { lastFailure, notAStringMessage, parseOrNull, syntaxMessage } from './parse.js';
import { lookupIpv4Block } from './special-purpose.js';
import type { AddressClassification, ParsedIp } from './types.js';

/** An address that passed parsing and classification. */
export interface NormalizedIp {
  /** Canonical text of the input (an IPv4-mapped input is already its IPv4 address). */
  readonly ip: string;
  readonly family: 4 | 6;
  readonly address: ParsedIp;
  /** What to give a geolocation reader: the embedded IPv4 for 6to4, Teredo and NAT64, else `ip`. */
  readonly lookupIp: string;
  readonly lookupFamily: 4 | 6;
  /** The decoded IPv4 for 6to4, Teredo and NAT64 addresses, else null. */
  readonly embedded: EmbeddedIpv4 | null;
}

/** The answer of checkIp: the normalized address, or why it was refused. */
export type IpCheck = ({ readonly ok: true } & NormalizedIp) | IpCheckFailure;

/** A refused input, as checkIp reports it. */
export interface IpCheckFailure {
  readonly ok: false;
  readonly input: string;
  readonly rule: IpRule;
  /** The same message the throwing functions use. */
  readonly message: string;
  /** For `special_purpose`: the block that rules the address out. */
  readonly classification: AddressClassification | null;
}

function syntaxError(input: unknown): InvalidIpError {
  if (typeof input !== 'string')
    return new InvalidIpError(String(input), 'not_a_string', notAStringMessage(input));
  const { rule, embeddedRule } = lastFailure();
  return new InvalidIpError(input, rule, syntaxMessage(input, rule, embeddedRule));
}

function parseUnknown(input: unknown): ParsedIp | null {
  return typeof input === 'string' ? parseOrNull(input) : null;
}

/** Parses an IP address strictly; throws ServiceError('invalid_ip') (an InvalidIpError) naming the broken rule. */
export function parseIp(input: string): ParsedIp {
  const address = parseUnknown(input);
  if (address === null) throw syntaxError(input);
  return address;
}

/**
 * Parses and classifies an address for geolocation; throws ServiceError('invalid_ip') (an
 * InvalidIpError) for malformed input and for special-purpose addresses, e.g.
 * `10.0.0.1 is in 10.0.0.0/8, private-use (RFC 1918)`.
 */
export function normalizeIp(input: string): NormalizedIp {
  const address = parseUnknown(input);
  if (address === null) throw syntaxError(input);
  if (address.family === 4) {
    // The common case, kept to one table lookup.
    if (lookupIpv4Block(address.value) !== null) {
      const classification = classifyAddress(address);
      if (classification !== null) throw specialPurposeError(input, address, classification);
    }
    return {
      ip: address.canonical,
      family: 4,
      address,
      lookupIp: address.canonical,
      lookupFamily: 4,
      embedded: null,
    };
  }
  const classification = classifyAddress(address);
  if (classification !== null) throw specialPurposeError(input, address, classification);
  const embedded = embeddedIpv4(address);
  return {
    ip: address.canonical,
    family: 6,
    address,
    lookupIp: embedded === null ? address.canonical : embedded.ipv4.canonical,
    lookupFamily: embedded === null ? 6 : 4,
    embedded,
  };
}

function specialPurposeError(
  input: string,
  address: ParsedIp,
  classification: AddressClassification,
): InvalidIpError {
  return new InvalidIpError(
    input,
    'special_purpose',
    classificationMessage(address.canonical, classification),
    classification,
  );
}

/** normalizeIp without exceptions, for bulk paths: `{ ok: true, ip, … }` or `{ ok: false, rule, message, … }`. */
export function checkIp(input: string): IpCheck {
  const address = parseUnknown(input);
  if (address === null) {
    if (typeof input !== 'string') {
      const message = notAStringMessage(input);
      return { ok: false, input: String(input), rule: 'not_a_string', message, classification: null };
    }
    const { rule, embeddedRule } = lastFailure();
    return {
      ok: false,
      input,
      rule,
      message: syntaxMessage(input, rule, embeddedRule),
      classification: null,
    };
  }
  const classification = classifyAddress(address);
  if (classification !== null) {
    const message = classificationMessage(address.canonical, classification);
    return { ok: false, input, rule: 'special_purpose', message, classification };
  }
  const embedded = address.family === 6 ? embeddedIpv4(address) : null;
  return {
    ok: true,
    ip: address.canonical,
    family: address.family,
    address,
    lookupIp: embedded === null ? address.canonical : embedded.ipv4.canonical,
    lookupFamily: embedded === null ? address.family : 4,
    embedded,
  };
}
