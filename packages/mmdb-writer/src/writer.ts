import { buildDatabase } from './build.js';
import { formatAddress, parseNetwork } from './cidr.js';
import { MmdbWriterError } from './errors.js';
import { leaf, SearchTree } from './search-tree.js';
import { ValuePool } from './value-pool.js';
import { describe, type MmdbValue } from './values.js';

/** Options for {@link createMmdbWriter}. */
export interface MmdbWriterOptions {
  /**
   * `database_type` in the metadata; readers use it to pick a schema. Required. Names
   * starting with "GeoIP" are reserved for MaxMind.
   */
  databaseType: string;
  /**
   * 4 for an IPv4-only tree (32 levels), 6 for an IPv6 tree that also holds IPv4 data at
   * `::a.b.c.d` (`::/96`).
   * @default 6
   */
  ipVersion?: 4 | 6;
  /**
   * Bits per search tree record. 24 is smallest; 28 and 32 allow more nodes plus data
   * (up to 2^recordSize - 1 in total). `toBuffer()` fails with `tree_too_large` if it doesn't fit.
   * @default 28
   */
  recordSize?: 24 | 28 | 32;
  /**
   * Locale codes the records may hold localized names for (`languages` in the metadata).
   * @default []
   */
  languages?: readonly string[];
  /**
   * Human-readable description per language code (`description` in the metadata).
   * @default {}
   */
  description?: Readonly<Record<string, string>>;
  /**
   * Build time written as `build_epoch`: a Date, or whole seconds since the Unix epoch.
   * @default the time `toBuffer()` is called
   */
  buildEpoch?: Date | number | bigint;
  /**
   * IPv6 trees only: make `::ffff:0:0/96` (IPv4-mapped) and `2002::/16` (6to4) lead to the
   * IPv4 data, as MaxMind's own databases do. Inserting a network inside either range is
   * then an `aliased_network` error, since it would be hidden by the alias.
   * @default true
   */
  ipv4Aliases?: boolean;
  /**
   * Accept networks with host bits set (`10.0.0.5/8`) by clearing them. Off by default
   * because such input is usually a mistake in the source data.
   * @default false
   */
  normalizeHostBits?: boolean;
}

/** A MaxMind DB file being built in memory. */
export interface MmdbWriter {
  /**
   * Stores `record` for every address in `network` (CIDR, or a bare address for one host).
   * A later insert overrides earlier ones where they overlap, including anything more
   * specific inside `network`; data outside it is untouched.
   */
  insert(network: string, record: MmdbValue): void;
  /** Serialises the database; the writer stays usable and may be written again. */
  toBuffer(): Buffer;
}

interface ResolvedOptions {
  readonly databaseType: string;
  readonly ipVersion: 4 | 6;
  readonly recordSize: 24 | 28 | 32;
  readonly languages: readonly string[];
  readonly description: Readonly<Record<string, string>>;
  readonly buildEpoch: bigint | undefined;
  readonly ipv4Aliases: boolean;
  readonly normalizeHostBits: boolean;
}

/** Creates an in-memory MaxMind DB writer; see {@link MmdbWriterOptions}. */
export function createMmdbWriter(options: MmdbWriterOptions): MmdbWriter {
  const resolved = resolveOptions(options);
  const tree = new SearchTree();
  const pool = new ValuePool();

  return {
    insert(network, record) {
      const parsed = parseNetwork(network, resolved.normalizeHostBits);
      let bytes = parsed.bytes;
      let prefixLength = parsed.prefixLength;
      if (parsed.family === 6 && resolved.ipVersion === 4) {
        throw new MmdbWriterError(
          'ip_version_mismatch',
          `Cannot insert IPv6 network ${JSON.stringify(network)} into an IPv4 database (ipVersion: 4); use ipVersion: 6`,
        );
      }
      if (parsed.family === 4 && resolved.ipVersion === 6) {
        bytes = new Uint8Array(16);
        bytes.set(parsed.bytes, 12);
        prefixLength += 96;
      }
      if (parsed.family === 6 && resolved.ipv4Aliases) checkNotAliased(network, bytes, prefixLength);
      const id = pool.add(record, 'record');
      tree.set(bytes, prefixLength, leaf(id));
    },
    toBuffer() {
      return buildDatabase({
        tree,
        pool,
        ipVersion: resolved.ipVersion,
        recordSize: resolved.recordSize,
        ipv4Aliases: resolved.ipv4Aliases,
        databaseType: resolved.databaseType,
        languages: resolved.languages,
        description: resolved.description,
        buildEpoch: resolved.buildEpoch ?? BigInt(Math.floor(Date.now() / 1000)),
      });
    },
  };
}

const ALIASES = [
  { name: '::ffff:0:0/96 (IPv4-mapped)', prefix: parseNetwork('::ffff:0:0/96') },
  { name: '2002::/16 (6to4)', prefix: parseNetwork('2002::/16') },
];

function checkNotAliased(network: string, bytes: Uint8Array, prefixLength: number): void {
  for (const alias of ALIASES) {
    const { bytes: aliasBytes, prefixLength: aliasLength } = alias.prefix;
    if (prefixLength < aliasLength) continue;
    // Both alias prefixes end on a byte boundary, so whole bytes can be compared.
    if (aliasBytes.subarray(0, aliasLength / 8).every((byte, i) => byte === bytes[i])) {
      throw new MmdbWriterError(
        'aliased_network',
        `Cannot insert ${JSON.stringify(network)} (${formatAddress(bytes)}/${prefixLength}): it lies inside the alias ${alias.name}, which points at the IPv4 data; insert the IPv4 network instead, or set ipv4Aliases: false`,
      );
    }
  }
}

function resolveOptions(options: MmdbWriterOptions): ResolvedOptions {
  if (typeof options !== 'object' || options === null) {
    throw new MmdbWriterError(
      'invalid_option',
      'createMmdbWriter needs an options object with at least databaseType',
    );
  }
  const {
    databaseType,
    ipVersion = 6,
    recordSize = 28,
    languages = [],
    description = {},
    buildEpoch,
    ipv4Aliases = true,
    normalizeHostBits = false,
  } = options;
  if (typeof databaseType !== 'string' || databaseType.length === 0) {
    throw optionError(`databaseType must be a non-empty string, got ${describe(databaseType)}`);
  }
  if (ipVersion !== 4 && ipVersion !== 6)
    throw optionError(`ipVersion must be 4 or 6, got ${describe(ipVersion)}`);
  if (recordSize !== 24 && recordSize !== 28 && recordSize !== 32) {
    throw optionError(`recordSize must be 24, 28 or 32, got ${describe(recordSize)}`);
  }
  if (!Array.isArray(languages) || !languages.every((l) => typeof l === 'string' && l.length > 0)) {
    throw optionError('languages must be an array of non-empty strings (locale codes such as "en")');
  }
  if (typeof description !== 'object' || description === null || Array.isArray(description)) {
    throw optionError(`description must be an object of language code to text, got ${describe(description)}`);
  }
  for (const [language, text] of Object.entries(description)) {
    if (typeof text !== 'string') {
      throw optionError(`description[${JSON.stringify(language)}] must be a string, got ${describe(text)}`);
    }
  }
  if (typeof ipv4Aliases !== 'boolean')
    throw optionError(`ipv4Aliases must be a boolean, got ${describe(ipv4Aliases)}`);
  if (typeof normalizeHostBits !== 'boolean') {
    throw optionError(`normalizeHostBits must be a boolean, got ${describe(normalizeHostBits)}`);
  }
  return {
    databaseType,
    ipVersion,
    recordSize,
    languages: [...languages],
    description: { ...description },
    buildEpoch: buildEpoch === undefined ? undefined : resolveEpoch(buildEpoch),
    ipv4Aliases,
    normalizeHostBits,
  };
}

function resolveEpoch(value: Date | number | bigint): bigint {
  if (value instanceof Date) {
    const ms = value.getTime();
    if (Number.isNaN(ms) || ms < 0)
      throw optionError('buildEpoch must be a valid Date at or after 1970-01-01');
    return BigInt(Math.floor(ms / 1000));
  }
  if (typeof value === 'number' && Number.isSafeInteger(value) && value >= 0) return BigInt(value);
  if (typeof value === 'bigint' && value >= 0n && value < 1n << 64n) return value;
  throw optionError(`buildEpoch must be a Date or whole seconds since 1970 (>= 0), got ${describe(value)}`);
}

function optionError(message: string): MmdbWriterError {
  return new MmdbWriterError('invalid_option', `Invalid option: ${message}`);
}
