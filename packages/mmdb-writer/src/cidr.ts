import { MmdbWriterError } from './errors.js';

/** A parsed network: the address bytes (4 or 16) with host bits cleared, and its prefix. */
export interface ParsedNetwork {
  readonly family: 4 | 6;
  readonly bytes: Uint8Array;
  readonly prefixLength: number;
}

const DECIMAL_OCTET = /^(0|[1-9]\d{0,2})$/;
const HEX_GROUP = /^[0-9a-fA-F]{1,4}$/;
const PREFIX = /^(0|[1-9]\d{0,2})$/;

/**
 * Parses `a.b.c.d/n`, an IPv6 `x::y/n` (an embedded dotted IPv4 tail is allowed) or a bare
 * address (a single host). Strict on purpose: no leading zeros in IPv4 parts (they read as
 * octal elsewhere), no zone ids, no whitespace. Host bits must be zero unless
 * `normalizeHostBits` is set, because `10.0.0.5/8` is usually a data error.
 */
export function parseNetwork(input: string, normalizeHostBits = false): ParsedNetwork {
  if (typeof input !== 'string') {
    throw new MmdbWriterError(
      'invalid_network',
      `A network must be a string like "10.0.0.0/8", got ${typeof input}`,
    );
  }
  const slash = input.indexOf('/');
  const addressPart = slash === -1 ? input : input.slice(0, slash);
  const family: 4 | 6 = addressPart.includes(':') ? 6 : 4;
  const bytes = family === 6 ? parseIpv6(addressPart) : parseIpv4(addressPart);
  if (bytes === undefined) {
    throw new MmdbWriterError(
      'invalid_network',
      `Invalid network ${JSON.stringify(input)}: ${JSON.stringify(addressPart)} is not an IPv${family} address`,
    );
  }
  const maxPrefix = bytes.length * 8;
  let prefixLength = maxPrefix;
  if (slash !== -1) {
    const prefixPart = input.slice(slash + 1);
    prefixLength = PREFIX.test(prefixPart) ? Number(prefixPart) : Number.NaN;
    if (!(prefixLength <= maxPrefix)) {
      throw new MmdbWriterError(
        'invalid_network',
        `Invalid network ${JSON.stringify(input)}: the prefix length must be a whole number from 0 to ${maxPrefix} for IPv${family}`,
      );
    }
  }
  if (hasHostBits(bytes, prefixLength)) {
    clearHostBits(bytes, prefixLength);
    if (!normalizeHostBits) {
      throw new MmdbWriterError(
        'invalid_network',
        `Invalid network ${JSON.stringify(input)}: host bits are set (the network is ${formatAddress(bytes)}/${prefixLength}); fix the data or pass normalizeHostBits: true`,
      );
    }
  }
  return { family, bytes, prefixLength };
}

/** Dotted IPv4 or RFC 5952 IPv6 text for 4 or 16 address bytes. */
export function formatAddress(bytes: Uint8Array): string {
  if (bytes.length === 4) return Array.from(bytes).join('.');
  const groups: number[] = [];
  for (let i = 0; i < 16; i += 2) groups.push((bytes[i]! << 8) | bytes[i + 1]!);
  // Compress the longest run of two or more zero groups (the first one on a tie).
  let bestStart = -1;
  let bestLength = 1;
  for (let i = 0; i < 8; ) {
    if (groups[i] !== 0) {
      i++;
      continue;
    }
    let j = i;
    while (j < 8 && groups[j] === 0) j++;
    if (j - i > bestLength) {
      bestStart = i;
      bestLength = j - i;
    }
    i = j;
  }
  const hex = groups.map((g) => g.toString(16));
  if (bestStart === -1) return hex.join(':');
  return `${hex.slice(0, bestStart).join(':')}::${hex.slice(bestStart + bestLength).join(':')}`;
}

function parseIpv4(text: string): Uint8Array | undefined {
  const parts = text.split('.');
  if (parts.length !== 4) return undefined;
  const bytes = new Uint8Array(4);
  for (let i = 0; i < 4; i++) {
    const part = parts[i]!;
    if (!DECIMAL_OCTET.test(part)) return undefined;
    const value = Number(part);
    if (value > 255) return undefined;
    bytes[i] = value;
  }
  return bytes;
}

function parseIpv6(text: string): Uint8Array | undefined {
  const halves = text.split('::');
  if (halves.length > 2) return undefined;
  const hasGap = halves.length === 2;
  // Only the last group of the whole address may be a dotted IPv4 (as in ::ffff:1.2.3.4).
  const head = hasGap ? parseGroups(halves[0]!, false) : [];
  const tail = parseGroups(halves[hasGap ? 1 : 0]!, true);
  if (head === undefined || tail === undefined) return undefined;
  const explicit = head.length + tail.length;
  if (hasGap ? explicit > 7 : explicit !== 8) return undefined;
  const groups = [...head, ...new Array<number>(8 - explicit).fill(0), ...tail];
  const bytes = new Uint8Array(16);
  groups.forEach((group, i) => {
    bytes[i * 2] = group >> 8;
    bytes[i * 2 + 1] = group & 0xff;
  });
  return bytes;
}

/** The 16-bit groups of one side of `::`; a dotted IPv4 tail counts as two groups. */
function parseGroups(text: string, dottedTailAllowed: boolean): number[] | undefined {
  if (text === '') return [];
  const parts = text.split(':');
  const groups: number[] = [];
  for (let i = 0; i < parts.length; i++) {
    const part = parts[i]!;
    if (HEX_GROUP.test(part)) {
      groups.push(Number.parseInt(part, 16));
    } else if (dottedTailAllowed && i === parts.length - 1) {
      const v4 = parseIpv4(part);
      if (v4 === undefined) return undefined;
      groups.push((v4[0]! << 8) | v4[1]!, (v4[2]! << 8) | v4[3]!);
    } else {
      return undefined;
    }
  }
  return groups;
}

function hasHostBits(bytes: Uint8Array, prefixLength: number): boolean {
  for (let bit = prefixLength; bit < bytes.length * 8; bit++) {
    if ((bytes[bit >> 3]! >> (7 - (bit & 7))) & 1) return true;
  }
  return false;
}

function clearHostBits(bytes: Uint8Array, prefixLength: number): void {
  for (let bit = prefixLength; bit < bytes.length * 8; bit++) {
    bytes[bit >> 3]! &= ~(1 << (7 - (bit & 7)));
  }
}
