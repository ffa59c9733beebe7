import { formatIpv4 } from './format.js';
import { lookupIpv4Block, lookupIpv6Block } from './special-purpose.js';
import { IPV4_SPECIAL_PURPOSE_BLOCKS, IPV6_SPECIAL_PURPOSE_BLOCKS } from './special-purpose-data.js';
import type {
  AddressClassification,
  EmbeddedVia,
  EmbeddingKind,
  ParsedIp,
  ParsedIpv4,
  ParsedIpv6,
  SpecialPurposeBlock,
} from './types.js';

/** An IPv4 address carried inside a 6to4, Teredo or NAT64 address. */
export interface EmbeddedIpv4 {
  readonly kind: EmbeddingKind;
  /** The tunnel block, e.g. `2002::/16`. */
  readonly entry: SpecialPurposeBlock;
  readonly ipv4: ParsedIpv4;
}

/**
 * Whether a block's addresses may be geolocated as they are: only blocks the registry marks
 * Globally Reachable. Tunnel blocks are decided by their embedded IPv4 instead.
 */
export function isGloballyReachable(block: SpecialPurposeBlock): boolean {
  return block.globallyReachable === true && block.embeds === null;
}

// One frozen answer per rejecting block, built once: rejecting an address allocates nothing.
const REJECTIONS = new Map<SpecialPurposeBlock, AddressClassification>();
for (const entry of [...IPV4_SPECIAL_PURPOSE_BLOCKS, ...IPV6_SPECIAL_PURPOSE_BLOCKS]) {
  if (entry.embeds !== null || isGloballyReachable(entry)) continue;
  REJECTIONS.set(
    entry,
    Object.freeze({
      block: entry.cidr,
      name: entry.name,
      rfc: entry.rfc,
      reason: entry.category,
      entry,
      via: null,
    }),
  );
}

function decode(kind: EmbeddingKind, words: readonly number[]): number {
  const w = (index: number) => words[index] ?? 0;
  switch (kind) {
    // RFC 3056 §2: 2002:V4ADDR::/48, the IPv4 address in bits 16-47.
    case '6to4':
      return ((w(1) << 16) | w(2)) >>> 0;
    // RFC 4380 §4: the client's public IPv4 is the last 32 bits with every bit inverted.
    case 'teredo':
      return ~((w(6) << 16) | w(7)) >>> 0;
    // RFC 6052 §2.2: with the /96 well-known prefix the IPv4 address is the last 32 bits.
    case 'nat64':
      return ((w(6) << 16) | w(7)) >>> 0;
  }
}

/** The IPv4 address a 6to4, Teredo or NAT64 (64:ff9b::/96) address carries, or null for other addresses. */
export function embeddedIpv4(address: ParsedIpv6): EmbeddedIpv4 | null {
  const entry = lookupIpv6Block(address.words);
  if (entry?.embeds == null) return null;
  const value = decode(entry.embeds, address.words);
  return { kind: entry.embeds, entry, ipv4: { family: 4, canonical: formatIpv4(value), value } };
}

/**
 * Null when an address may be geolocated (public, or a globally reachable special block); otherwise
 * the most specific block that rules it out. 6to4, Teredo and NAT64 addresses are judged by the
 * IPv4 address they carry.
 */
export function classifyAddress(address: ParsedIp): AddressClassification | null {
  if (address.family === 4) {
    const entry = lookupIpv4Block(address.value);
    return entry === null ? null : (REJECTIONS.get(entry) ?? null);
  }
  const entry = lookupIpv6Block(address.words);
  if (entry === null) return null;
  if (entry.embeds === null) return REJECTIONS.get(entry) ?? null;
  const value = decode(entry.embeds, address.words);
  const inner = lookupIpv4Block(value);
  const rejection = inner === null ? undefined : REJECTIONS.get(inner);
  if (rejection === undefined) return null;
  const via: EmbeddedVia = {
    kind: entry.embeds,
    entry,
    ipv4: { family: 4, canonical: formatIpv4(value), value },
  };
  return { ...rejection, via };
}

/** The `invalid_ip` message for a rejected address: `<ip> is in <block>, <name> (<RFC>)`. */
export function classificationMessage(canonical: string, classification: AddressClassification): string {
  const { via } = classification;
  const where = `${classification.block}, ${classification.name} (${classification.rfc})`;
  if (via === null) return `${canonical} is in ${where}`;
  return `${canonical} is in ${via.entry.cidr}, ${via.entry.name} (${via.entry.rfc}), and its embedded IPv4 ${via.ipv4.canonical} is in ${where}`;
}
