import { type FSWatcher, watch } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { basename, dirname } from 'node:path';
import { type ParsedIp, parseIp } from '@svc/ip-address';
import { Reader } from 'maxmind';
import type { GeoBackend, GeoField, MatchedNetwork, SharedAnswer } from '../backend.js';
import { mappedRecords } from './mapped-records.js';
import {
  checkSchemaFits,
  type MmdbSchema,
  schemaForDatabaseType,
  unknownDatabaseTypeError,
} from './mmdb-schemas.js';
import { verifyMmdb } from './mmdb-verify.js';
import { formatNetwork, ipv4Mapped } from './network.js';
import { SearchTree } from './search-tree.js';
import { SlotCache } from './slot-cache.js';

/** Options of an mmdb (MaxMind DB format) backend. */
export interface MmdbBackendOptions {
  /** Path of the .mmdb file (reloadable and watchable), or the file's bytes. */
  source: string | Buffer;
  /**
   * How records map to fields.
   * @default chosen from the file's `database_type` metadata
   */
  schema?: MmdbSchema;
  /**
   * Name in `sources`.
   * @default `<database_type in lower case>`
   */
  id?: string;
  /**
   * Reload when the file changes on disk (path sources only). A broken new file is reported
   * through onError and the old data keeps serving.
   * @default false
   */
  watch?: boolean;
  /**
   * How much of a file is checked before it serves: `full` walks the tree and checks every
   * record against the format's type and size rules (under a second for a 60 MB city file, in
   * slices that yield to the event loop), `tree` walks the tree and checks pointer bounds,
   * `none` trusts the file (use only for files verified before, e.g. by a stamp).
   * @default 'full'
   */
  verify?: 'full' | 'tree' | 'none';
  /**
   * How `describe()` names where the data came from, when the path alone does not say it (a
   * compiled file's origin, say).
   * @default the path, or `buffer`
   */
  sourceLabel?: string;
  /** Called with reload and watcher errors. @default no-op */
  onError?: (error: Error) => void;
  /** Called after a successful reload. @default no-op */
  onReload?: () => void;
}

/** An mmdb backend plus what it read from the file. */
export interface MmdbBackend extends GeoBackend {
  readonly databaseType: string;
  readonly ipVersion: 4 | 6;
  readonly buildEpoch: Date;
}

/**
 * Opens an mmdb file as a backend. The file is fully validated before use (metadata, the whole
 * tree and every record it reaches, see verifyMmdb), so a corrupt file fails here, not per request.
 */
export async function openMmdbBackend(options: MmdbBackendOptions): Promise<MmdbBackend> {
  const path = typeof options.source === 'string' ? options.source : undefined;
  const onError = options.onError ?? (() => {});
  const verify = options.verify ?? 'full';
  let current = await load(options.source, options.schema, verify);
  let watcher: FSWatcher | undefined;
  let generation = 0;
  const openedType = current.reader.metadata.databaseType;
  const id = options.id ?? openedType.toLowerCase();

  // Reloads run one at a time, in call order: verification yields to the event loop, so two
  // overlapping reloads could otherwise finish out of order and leave the older file serving.
  let reloading: Promise<void> = Promise.resolve();
  function reload(): Promise<void> {
    const run = reloading.then(reloadNow);
    reloading = run.catch(() => {});
    return run;
  }

  async function reloadNow() {
    if (!path) throw new Error(`${id}: a backend opened from a Buffer cannot reload`);
    // The new reader replaces the old one only after it passed every check.
    const next = await load(path, options.schema, verify);
    // A detected schema follows the new file; a schema given at open must still fit it.
    if (options.schema) checkSchemaFits(path, options.schema, openedType, next.reader.metadata.databaseType);
    current = next;
    generation++;
    options.onReload?.();
  }

  if (options.watch) {
    if (!path) throw new TypeError('watch needs a file path as source');
    let timer: NodeJS.Timeout | undefined;
    // Watch the directory: an atomic rename replaces the inode a file watcher would hold.
    watcher = watch(dirname(path), { persistent: false }, (_event, name) => {
      if (name !== null && name !== basename(path)) return;
      clearTimeout(timer);
      timer = setTimeout(() => reload().catch((error: Error) => onError(error)), 100);
    });
    watcher.on('error', (error) => onError(error));
  }

  function find(address: ParsedIp, match: MatchedNetwork): SharedAnswer | null {
    const { tree, records } = current;
    // An IPv6 address in an IPv4-only tree finds nothing (the tree would answer for its first 32 bits).
    const pointer = address.family === 4 ? tree.findIpv4(address.value) : tree.findIpv6(address.words);
    match.prefixLength = tree.prefixLength;
    return pointer === 0 ? null : records(pointer);
  }

  return {
    id,
    get provides(): readonly GeoField[] {
      return current.schema.provides;
    },
    get generation() {
      return generation;
    },
    get reportsNetwork() {
      return current.schema.reportsNetwork !== false;
    },
    get databaseType() {
      return current.reader.metadata.databaseType;
    },
    get ipVersion() {
      return current.reader.metadata.ipVersion as 4 | 6;
    },
    get buildEpoch() {
      return current.reader.metadata.buildEpoch;
    },
    lookup(ip, family) {
      const parsed = parseIp(ip);
      // The resolver passes ::ffff:a.b.c.d unwrapped, as IPv4; asked for it as IPv6, walk it as IPv6.
      const address = family === 6 && parsed.family === 4 ? ipv4Mapped(parsed) : parsed;
      const match: MatchedNetwork = { prefixLength: 0 };
      const answer = find(address, match);
      // A copy: the mapped fields are shared with every other address of the record.
      if (!answer) return null;
      if (current.schema.reportsNetwork === false) return { ...answer.fields };
      return { ...answer.fields, network: formatNetwork(address, match.prefixLength) };
    },
    lookupAddress: find,
    describe: () => [
      {
        id,
        databaseType: current.reader.metadata.databaseType,
        buildEpoch: current.reader.metadata.buildEpoch,
        source: options.sourceLabel ?? path ?? 'buffer',
      },
    ],
    reload,
    close() {
      watcher?.close();
    },
  };
}

async function load(
  source: string | Buffer,
  schemaOption: MmdbSchema | undefined,
  verify: 'full' | 'tree' | 'none',
) {
  const label = typeof source === 'string' ? source : 'buffer';
  const bytes = typeof source === 'string' ? await readFile(source) : source;
  let reader: Reader<Record<string, unknown>>;
  try {
    // Decoded records (and the values they point to, such as shared names) are cached by their data
    // offset. The cached objects stay inside the backend; schema.map copies what it needs.
    reader = new Reader(bytes, { cache: new SlotCache(CACHE_SLOT_BITS) });
  } catch (error) {
    throw new Error(`${label} is not a valid MaxMind DB file: ${(error as Error).message}`, { cause: error });
  }
  const { metadata } = reader;
  if (
    ![4, 6].includes(metadata.ipVersion) ||
    ![24, 28, 32].includes(metadata.recordSize) ||
    metadata.nodeCount <= 0
  ) {
    throw new Error(
      `${label} has impossible metadata (ip_version ${metadata.ipVersion}, record_size ${metadata.recordSize})`,
    );
  }
  const schema = schemaOption ?? schemaForDatabaseType(metadata.databaseType);
  if (!schema) throw unknownDatabaseTypeError(label, metadata.databaseType);
  try {
    if (verify !== 'none') await verifyMmdb(bytes, metadata, verify === 'full');
  } catch (error) {
    throw new Error(`${label} is corrupt: ${(error as Error).message}`, { cause: error });
  }
  return {
    reader,
    schema,
    tree: new SearchTree(bytes, metadata),
    // As many mapped records as the reader keeps decoded values.
    records: mappedRecords(reader, schema, CACHE_SLOT_BITS),
  };
}

// Slots per cache (decoded values, mapped records) and per backend: 32,768. Keys are data
// pointers, never addresses, so this caches records, not answers.
const CACHE_SLOT_BITS = 15;
