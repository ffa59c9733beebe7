/** An IPv4 address accepted by the strict parser. */
export interface ParsedIpv4 {
  readonly family: 4;
  /** Dotted decimal, e.g. `81.2.69.142`. */
  readonly canonical: string;
  /** The address as an unsigned 32-bit integer (0 … 2^32-1). */
  readonly value: number;
}

/** An IPv6 address accepted by the strict parser (never an IPv4-mapped one: those become IPv4). */
export interface ParsedIpv6 {
  readonly family: 6;
  /** RFC 5952 text: lowercase, no leading zeros, the longest run of two or more zero groups as `::`. */
  readonly canonical: string;
  /** The eight 16-bit groups, most significant first. */
  readonly words: readonly number[];
}

/** An address accepted by the strict parser. */
export type ParsedIp = ParsedIpv4 | ParsedIpv6;

/** Why the parser rejected an input; stable snake_case values. */
export type IpSyntaxRule =
  | 'not_a_string'
  | 'empty'
  | 'too_long'
  | 'whitespace'
  | 'non_ascii'
  | 'cidr_suffix'
  | 'zone_id'
  | 'brackets'
  | 'ipv4_characters'
  | 'ipv4_parts'
  | 'ipv4_empty_part'
  | 'ipv4_leading_zero'
  | 'ipv4_range'
  | 'ipv6_characters'
  | 'ipv6_group_length'
  | 'ipv6_group_count'
  | 'ipv6_colons'
  | 'ipv6_edge_colon'
  | 'ipv6_embedded_ipv4_position'
  | 'ipv6_embedded_ipv4';

/** Which special-purpose rule a block falls under; stable snake_case values. */
export type SpecialPurposeCategory =
  | 'unspecified'
  | 'loopback'
  | 'private_use'
  | 'shared_address_space'
  | 'link_local'
  | 'documentation'
  | 'benchmarking'
  | 'multicast'
  | 'broadcast'
  | 'reserved'
  | 'deprecated'
  | 'protocol_assignment'
  | 'ipv4_mapped'
  | 'anycast'
  | 'translation'
  | 'tunnel'
  | 'identifier';

/** The IANA registry a block comes from. */
export type AddressRegistry =
  | 'ipv4-special-purpose'
  | 'ipv6-special-purpose'
  | 'ipv4-multicast'
  | 'ipv6-multicast'
  | 'ipv6-address-space';

/** A transition mechanism whose IPv6 addresses carry an IPv4 address. */
export type EmbeddingKind = '6to4' | 'teredo' | 'nat64';

/** One block of the special-purpose table, with the registry's flags (`null` = "N/A" in the registry). */
export interface SpecialPurposeBlock {
  /** The block in CIDR notation, e.g. `10.0.0.0/8`. */
  readonly cidr: string;
  readonly family: 4 | 6;
  /** Short label used in error messages, e.g. `private-use`. */
  readonly name: string;
  /** The registry's own name for the block, e.g. `Private-Use`. */
  readonly registryName: string;
  /** The defining RFC(s), e.g. `RFC 1918`. */
  readonly rfc: string;
  readonly registry: AddressRegistry;
  readonly category: SpecialPurposeCategory;
  readonly source: boolean | null;
  readonly destination: boolean | null;
  readonly forwardable: boolean | null;
  readonly globallyReachable: boolean | null;
  readonly reservedByProtocol: boolean | null;
  /** The registry's termination date (`YYYY-MM`) for withdrawn blocks. */
  readonly terminated: string | null;
  /** Set when addresses in the block carry an IPv4 address that is classified (and geolocated) instead. */
  readonly embeds: EmbeddingKind | null;
}

/** Why an address is not acceptable for geolocation. */
export interface AddressClassification {
  /** CIDR of the block that rejected the address (for a tunnel address: the block of its embedded IPv4). */
  readonly block: string;
  readonly name: string;
  readonly rfc: string;
  readonly reason: SpecialPurposeCategory;
  readonly entry: SpecialPurposeBlock;
  /** For 6to4, Teredo and NAT64 addresses: the tunnel block and the embedded IPv4 that was rejected. */
  readonly via: EmbeddedVia | null;
}

/** The tunnel an IPv4 address was decoded from. */
export interface EmbeddedVia {
  readonly kind: EmbeddingKind;
  /** The tunnel block, e.g. `2002::/16`. */
  readonly entry: SpecialPurposeBlock;
  /** The embedded IPv4 address. */
  readonly ipv4: ParsedIpv4;
}
