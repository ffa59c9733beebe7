/** One DNS blocklist (DNSBL) the doctor looks the probing address up in. */
export interface BlocklistSpec {
  /** The DNS zone queried: `<reversed address>.<zone>`, e.g. `zen.spamhaus.org`. */
  zone: string;
  /** A name for people. */
  name: string;
  /** What each answer address means when the address is listed, e.g. `{ '127.0.0.2': 'SBL: …' }`. */
  codes: Readonly<Record<string, string>>;
  /**
   * Answers that are not listings but the list refusing or failing the query (Spamhaus answers
   * 127.255.255.x to queries it will not serve): the result is "can't tell", never "listed".
   */
  errorCodes?: Readonly<Record<string, string>>;
  /** Where a listed address asks to be removed (or how removal works), when the list publishes it. */
  delisting: string | null;
  /** The list publishes IPv6 addresses; when false an IPv6 probing address is not looked up. */
  ipv6: boolean;
  /**
   * The list publishes the RFC 5782 test entry 127.0.0.2, which the doctor asks before trusting
   * a "not listed": a list that does not answer it is dead or refuses the resolver.
   * @default true
   */
  testEntry?: boolean;
}

/**
 * The lists receivers most commonly consult, as defaults. Codes and delisting pages as the lists
 * document them (checked 2026-11). Barracuda and Spamhaus answer only resolvers they know: Spamhaus
 * answers queries through large public resolvers (8.8.8.8, 1.1.1.1 …) with 127.255.255.254, which
 * the doctor reports as "query refused", and Barracuda asks users to register their resolver.
 */
export const DEFAULT_BLOCKLISTS: readonly BlocklistSpec[] = [
  {
    zone: 'zen.spamhaus.org',
    name: 'Spamhaus ZEN',
    codes: {
      '127.0.0.2': 'SBL: a known spam source or spam operation',
      '127.0.0.3': 'SBL CSS: snowshoe spam or low-reputation sending',
      '127.0.0.4': 'XBL: an exploited or infected machine (CBL data)',
      '127.0.0.5': 'XBL: an exploited or infected machine',
      '127.0.0.6': 'XBL: an exploited or infected machine',
      '127.0.0.7': 'XBL: an exploited or infected machine',
      '127.0.0.9': 'SBL DROP: a hijacked or spammer-controlled network',
      '127.0.0.10': 'PBL (ISP maintained): an end-user range that should not send mail directly',
      '127.0.0.11': 'PBL (Spamhaus maintained): an end-user range that should not send mail directly',
      '127.0.0.30': 'BCL: a botnet controller',
    },
    errorCodes: {
      '127.255.255.252': 'query refused: the zone name is mistyped',
      '127.255.255.254':
        'query refused: it came through a public or open resolver (8.8.8.8, 1.1.1.1, …), which Spamhaus does not answer; use your own resolver or a Spamhaus DQS key',
      '127.255.255.255': 'query refused: too many queries from this resolver',
    },
    delisting: 'https://check.spamhaus.org/',
    ipv6: true,
  },
  {
    zone: 'b.barracudacentral.org',
    name: 'Barracuda Reputation Block List',
    codes: { '127.0.0.2': 'listed for poor sending reputation' },
    delisting: 'https://www.barracudacentral.org/rbl/removal-request',
    ipv6: false,
  },
  {
    zone: 'bl.spamcop.net',
    name: 'SpamCop',
    codes: { '127.0.0.2': 'reported as a spam source by SpamCop users or spam traps' },
    delisting:
      'https://www.spamcop.net/bl.shtml (entries expire on their own about 24 hours after the last report)',
    ipv6: false,
  },
  {
    zone: 'dnsbl-1.uceprotect.net',
    name: 'UCEPROTECT Level 1',
    codes: { '127.0.0.2': 'this single address sent to UCEPROTECT spam traps' },
    delisting: 'https://www.uceprotect.net/en/rblcheck.php (entries expire 7 days after the last trap hit)',
    ipv6: false,
  },
];

/** The spec for a zone: a default list's (codes, delisting page) when it is one, else a plain one. */
export function blocklistForZone(zone: string): BlocklistSpec {
  const known = DEFAULT_BLOCKLISTS.find((list) => list.zone === zone.toLowerCase());
  return known ?? { zone, name: zone, codes: {}, delisting: null, ipv6: true };
}
