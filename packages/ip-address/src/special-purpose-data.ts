import type { AddressRegistry, EmbeddingKind, SpecialPurposeBlock, SpecialPurposeCategory } from './types.js';

/*
 * Written by hand from the IANA registries (they cannot be fetched at build time):
 * - IANA IPv4 Special-Purpose Address Registry (RFC 6890, RFC 8190)
 * - IANA IPv6 Special-Purpose Address Registry (RFC 6890, RFC 8190)
 * - IPv4 Multicast Address Space Registry (224.0.0.0/4, RFC 5771)
 * - IPv6 Multicast Address Space Registry (ff00::/8, RFC 4291)
 * - IANA IPv6 Address Space registry: every block outside 2000::/3 that is "Reserved by IETF"
 *
 * The flag string lists the registry's columns Source, Destination, Forwardable, Globally
 * Reachable and Reserved-by-Protocol in that order: T = True, F = False, - = N/A.
 * Blocks nest (192.0.0.9/32 inside 192.0.0.0/24); the most specific one decides.
 */

type Flags = `${'T' | 'F' | '-'}${'T' | 'F' | '-'}${'T' | 'F' | '-'}${'T' | 'F' | '-'}${'T' | 'F' | '-'}`;

interface Row {
  cidr: string;
  name: string;
  registryName: string;
  rfc: string;
  category: SpecialPurposeCategory;
  flags: Flags;
  terminated?: string;
  embeds?: EmbeddingKind;
}

function flag(value: string | undefined): boolean | null {
  return value === 'T' ? true : value === 'F' ? false : null;
}

function rows(family: 4 | 6, registry: AddressRegistry, list: readonly Row[]): SpecialPurposeBlock[] {
  return list.map((row) =>
    Object.freeze({
      cidr: row.cidr,
      family,
      name: row.name,
      registryName: row.registryName,
      rfc: row.rfc,
      registry,
      category: row.category,
      source: flag(row.flags[0]),
      destination: flag(row.flags[1]),
      forwardable: flag(row.flags[2]),
      globallyReachable: flag(row.flags[3]),
      reservedByProtocol: flag(row.flags[4]),
      terminated: row.terminated ?? null,
      embeds: row.embeds ?? null,
    }),
  );
}

// biome-ignore format: one registry row per line reads like the registry.
const IPV4_SPECIAL: readonly Row[] = [
  // RFC 791 §3.2; RFC 1122 §3.2.1.3 for the /32.
  { cidr: '0.0.0.0/8', name: 'this network', registryName: '"This network"', rfc: 'RFC 791', category: 'unspecified', flags: 'TFFFT' },
  { cidr: '0.0.0.0/32', name: 'this host on this network', registryName: '"This host on this network"', rfc: 'RFC 1122', category: 'unspecified', flags: 'TFFFT' },
  { cidr: '10.0.0.0/8', name: 'private-use', registryName: 'Private-Use', rfc: 'RFC 1918', category: 'private_use', flags: 'TTTFF' },
  { cidr: '100.64.0.0/10', name: 'CGNAT shared address space', registryName: 'Shared Address Space', rfc: 'RFC 6598', category: 'shared_address_space', flags: 'TTTFF' },
  // RFC 1122 §3.2.1.3.
  { cidr: '127.0.0.0/8', name: 'loopback', registryName: 'Loopback', rfc: 'RFC 1122', category: 'loopback', flags: 'FFFFT' },
  { cidr: '169.254.0.0/16', name: 'link-local', registryName: 'Link Local', rfc: 'RFC 3927', category: 'link_local', flags: 'TTFFT' },
  { cidr: '172.16.0.0/12', name: 'private-use', registryName: 'Private-Use', rfc: 'RFC 1918', category: 'private_use', flags: 'TTTFF' },
  // RFC 6890 §2.1: "not usable unless by virtue of a more specific reservation".
  { cidr: '192.0.0.0/24', name: 'IETF protocol assignments', registryName: 'IETF Protocol Assignments', rfc: 'RFC 6890', category: 'protocol_assignment', flags: 'FFFFF' },
  { cidr: '192.0.0.0/29', name: 'DS-Lite IPv4 service continuity prefix', registryName: 'IPv4 Service Continuity Prefix', rfc: 'RFC 7335', category: 'protocol_assignment', flags: 'TTTFF' },
  { cidr: '192.0.0.8/32', name: 'IPv4 dummy address', registryName: 'IPv4 dummy address', rfc: 'RFC 7600', category: 'protocol_assignment', flags: 'TFFFF' },
  { cidr: '192.0.0.9/32', name: 'Port Control Protocol anycast', registryName: 'Port Control Protocol Anycast', rfc: 'RFC 7723', category: 'anycast', flags: 'TTTTF' },
  { cidr: '192.0.0.10/32', name: 'TURN anycast', registryName: 'Traversal Using Relays around NAT Anycast', rfc: 'RFC 8155', category: 'anycast', flags: 'TTTTF' },
  // RFC 7050 §2.2 defined them; RFC 8880 is the current reference.
  { cidr: '192.0.0.170/32', name: 'NAT64/DNS64 discovery', registryName: 'NAT64/DNS64 Discovery', rfc: 'RFC 8880', category: 'protocol_assignment', flags: 'FFFFT' },
  { cidr: '192.0.0.171/32', name: 'NAT64/DNS64 discovery', registryName: 'NAT64/DNS64 Discovery', rfc: 'RFC 8880', category: 'protocol_assignment', flags: 'FFFFT' },
  { cidr: '192.0.2.0/24', name: 'TEST-NET-1 documentation', registryName: 'Documentation (TEST-NET-1)', rfc: 'RFC 5737', category: 'documentation', flags: 'FFFFF' },
  { cidr: '192.31.196.0/24', name: 'AS112-v4', registryName: 'AS112-v4', rfc: 'RFC 7535', category: 'anycast', flags: 'TTTTF' },
  { cidr: '192.52.193.0/24', name: 'AMT', registryName: 'AMT', rfc: 'RFC 7450', category: 'anycast', flags: 'TTTTF' },
  // Withdrawn in 2015-03: the registry leaves every flag empty.
  { cidr: '192.88.99.0/24', name: 'deprecated 6to4 relay anycast', registryName: 'Deprecated (6to4 Relay Anycast)', rfc: 'RFC 7526', category: 'deprecated', flags: '-----', terminated: '2015-03' },
  { cidr: '192.88.99.2/32', name: '6a44-relay anycast', registryName: '6a44-relay anycast address', rfc: 'RFC 6751', category: 'protocol_assignment', flags: 'TTTFF' },
  { cidr: '192.168.0.0/16', name: 'private-use', registryName: 'Private-Use', rfc: 'RFC 1918', category: 'private_use', flags: 'TTTFF' },
  { cidr: '192.175.48.0/24', name: 'direct delegation AS112 service', registryName: 'Direct Delegation AS112 Service', rfc: 'RFC 7534', category: 'anycast', flags: 'TTTTF' },
  { cidr: '198.18.0.0/15', name: 'benchmarking', registryName: 'Benchmarking', rfc: 'RFC 2544', category: 'benchmarking', flags: 'TTTFF' },
  { cidr: '198.51.100.0/24', name: 'TEST-NET-2 documentation', registryName: 'Documentation (TEST-NET-2)', rfc: 'RFC 5737', category: 'documentation', flags: 'FFFFF' },
  { cidr: '203.0.113.0/24', name: 'TEST-NET-3 documentation', registryName: 'Documentation (TEST-NET-3)', rfc: 'RFC 5737', category: 'documentation', flags: 'FFFFF' },
  // RFC 1112 §4.
  { cidr: '240.0.0.0/4', name: 'reserved', registryName: 'Reserved', rfc: 'RFC 1112', category: 'reserved', flags: 'FFFFT' },
  // RFC 919 §7; RFC 8190 set its flags.
  { cidr: '255.255.255.255/32', name: 'limited broadcast', registryName: 'Limited Broadcast', rfc: 'RFC 919', category: 'broadcast', flags: 'FTFFT' },
];

// biome-ignore format: one registry row per line reads like the registry.
const IPV4_MULTICAST: readonly Row[] = [
  { cidr: '224.0.0.0/4', name: 'multicast', registryName: 'Multicast', rfc: 'RFC 5771', category: 'multicast', flags: '-----' },
];

// biome-ignore format: one registry row per line reads like the registry.
const IPV6_SPECIAL: readonly Row[] = [
  // RFC 4291 §2.5.3, §2.5.2, §2.5.5.2.
  { cidr: '::1/128', name: 'loopback', registryName: 'Loopback Address', rfc: 'RFC 4291', category: 'loopback', flags: 'FFFFT' },
  { cidr: '::/128', name: 'unspecified', registryName: 'Unspecified Address', rfc: 'RFC 4291', category: 'unspecified', flags: 'TFFFT' },
  { cidr: '::ffff:0:0/96', name: 'IPv4-mapped', registryName: 'IPv4-mapped Address', rfc: 'RFC 4291', category: 'ipv4_mapped', flags: 'FFFFT' },
  // Globally reachable; RFC 6052 §3.1 forbids it for non-global IPv4, so the embedded IPv4 decides.
  { cidr: '64:ff9b::/96', name: 'NAT64 well-known prefix', registryName: 'IPv4-IPv6 Translat.', rfc: 'RFC 6052', category: 'translation', flags: 'TTTTF', embeds: 'nat64' },
  { cidr: '64:ff9b:1::/48', name: 'local-use IPv4/IPv6 translation', registryName: 'IPv4-IPv6 Translat.', rfc: 'RFC 8215', category: 'protocol_assignment', flags: 'TTTFF' },
  { cidr: '100::/64', name: 'discard-only', registryName: 'Discard-Only Address Block', rfc: 'RFC 6666', category: 'protocol_assignment', flags: 'TTTFF' },
  { cidr: '100:0:0:1::/64', name: 'dummy IPv6 prefix', registryName: 'Dummy IPv6 Prefix', rfc: 'RFC 9780', category: 'protocol_assignment', flags: 'TFFFF' },
  { cidr: '2001::/23', name: 'IETF protocol assignments', registryName: 'IETF Protocol Assignments', rfc: 'RFC 2928', category: 'protocol_assignment', flags: 'FFFFF' },
  // RFC 4380 §2.6 (RFC 8190 set Globally Reachable to N/A): the client IPv4 decides.
  { cidr: '2001::/32', name: 'Teredo', registryName: 'TEREDO', rfc: 'RFC 4380', category: 'tunnel', flags: 'TTT-F', embeds: 'teredo' },
  { cidr: '2001:1::1/128', name: 'Port Control Protocol anycast', registryName: 'Port Control Protocol Anycast', rfc: 'RFC 7723', category: 'anycast', flags: 'TTTTF' },
  { cidr: '2001:1::2/128', name: 'TURN anycast', registryName: 'Traversal Using Relays around NAT Anycast', rfc: 'RFC 8155', category: 'anycast', flags: 'TTTTF' },
  { cidr: '2001:1::3/128', name: 'DNS-SD service registration protocol anycast', registryName: 'DNS-SD Service Registration Protocol Anycast', rfc: 'RFC 9665', category: 'anycast', flags: 'TTTTF' },
  // RFC 5180 as corrected by erratum 1752 (the RFC text says 2001:0200::/48).
  { cidr: '2001:2::/48', name: 'benchmarking', registryName: 'Benchmarking', rfc: 'RFC 5180', category: 'benchmarking', flags: 'TTTFF' },
  { cidr: '2001:3::/32', name: 'AMT', registryName: 'AMT', rfc: 'RFC 7450', category: 'anycast', flags: 'TTTTF' },
  { cidr: '2001:4:112::/48', name: 'AS112-v6', registryName: 'AS112-v6', rfc: 'RFC 7535', category: 'anycast', flags: 'TTTTF' },
  // Returned to IANA in 2014-03: the registry leaves every flag empty.
  { cidr: '2001:10::/28', name: 'deprecated ORCHID', registryName: 'Deprecated (previously ORCHID)', rfc: 'RFC 4843', category: 'deprecated', flags: '-----', terminated: '2014-03' },
  { cidr: '2001:20::/28', name: 'ORCHIDv2', registryName: 'ORCHIDv2', rfc: 'RFC 7343', category: 'identifier', flags: 'TTTTF' },
  { cidr: '2001:30::/28', name: 'drone remote ID entity tags', registryName: 'Drone Remote ID Protocol Entity Tags (DETs) Prefix', rfc: 'RFC 9374', category: 'identifier', flags: 'TTTTF' },
  { cidr: '2001:db8::/32', name: 'documentation', registryName: 'Documentation', rfc: 'RFC 3849', category: 'documentation', flags: 'FFFFF' },
  // RFC 3056 §2: bits 16-47 are the site's IPv4 address, which decides.
  { cidr: '2002::/16', name: '6to4', registryName: '6to4', rfc: 'RFC 3056', category: 'tunnel', flags: 'TTT-F', embeds: '6to4' },
  { cidr: '2620:4f:8000::/48', name: 'direct delegation AS112 service', registryName: 'Direct Delegation AS112 Service', rfc: 'RFC 7534', category: 'anycast', flags: 'TTTTF' },
  { cidr: '3fff::/20', name: 'documentation', registryName: 'Documentation', rfc: 'RFC 9637', category: 'documentation', flags: 'FFFFF' },
  { cidr: '5f00::/16', name: 'SRv6 segment identifiers', registryName: 'Segment Routing (SRv6) SIDs', rfc: 'RFC 9602', category: 'protocol_assignment', flags: 'TTTFF' },
  // RFC 4193; RFC 8190 set Globally Reachable to False.
  { cidr: 'fc00::/7', name: 'unique-local', registryName: 'Unique-Local', rfc: 'RFC 4193', category: 'private_use', flags: 'TTTFF' },
  { cidr: 'fe80::/10', name: 'link-local', registryName: 'Link-Local Unicast', rfc: 'RFC 4291', category: 'link_local', flags: 'TTFFT' },
];

// biome-ignore format: one registry row per line reads like the registry.
const IPV6_MULTICAST: readonly Row[] = [
  // RFC 4291 §2.7.
  { cidr: 'ff00::/8', name: 'multicast', registryName: 'Multicast', rfc: 'RFC 4291', category: 'multicast', flags: '-----' },
];

// Everything outside 2000::/3 (global unicast), fc00::/7, fe80::/10 and ff00::/8 is "Reserved by
// IETF" in the IPv6 Address Space registry (RFC 4291 §2.4): nothing there is routed on the Internet.
// biome-ignore format: one registry row per line reads like the registry.
const IPV6_RESERVED: readonly Row[] = [
  ...['::/8', '100::/8', '400::/6', '800::/5', '1000::/4'].map((cidr) => reservedRow(cidr, 'RFC 4291')),
  // Formerly the OSI NSAP-mapped prefix, deprecated by RFC 4048.
  reservedRow('200::/7', 'RFC 4048'),
  ...['4000::/3', '6000::/3', '8000::/3', 'a000::/3', 'c000::/3', 'e000::/4', 'f000::/5', 'f800::/6', 'fe00::/9'].map(
    (cidr) => reservedRow(cidr, 'RFC 4291'),
  ),
  { cidr: 'fec0::/10', name: 'deprecated site-local', registryName: 'Reserved by IETF', rfc: 'RFC 3879', category: 'deprecated', flags: '-----' },
];

function reservedRow(cidr: string, rfc: string): Row {
  return {
    cidr,
    name: 'reserved by IETF',
    registryName: 'Reserved by IETF',
    rfc,
    category: 'reserved',
    flags: '-----',
  };
}

/** The IPv4 table: the IPv4 Special-Purpose Address Registry plus multicast (224.0.0.0/4). */
export const IPV4_SPECIAL_PURPOSE_BLOCKS: readonly SpecialPurposeBlock[] = Object.freeze([
  ...rows(4, 'ipv4-special-purpose', IPV4_SPECIAL),
  ...rows(4, 'ipv4-multicast', IPV4_MULTICAST),
]);

/** The IPv6 table: the IPv6 Special-Purpose Address Registry plus multicast and the unallocated space outside 2000::/3. */
export const IPV6_SPECIAL_PURPOSE_BLOCKS: readonly SpecialPurposeBlock[] = Object.freeze([
  ...rows(6, 'ipv6-special-purpose', IPV6_SPECIAL),
  ...rows(6, 'ipv6-multicast', IPV6_MULTICAST),
  ...rows(6, 'ipv6-address-space', IPV6_RESERVED),
]);
