import { createHash } from 'node:crypto';
import { readFile, stat } from 'node:fs/promises';
import type { GeoBackend, GeoDatabaseDescription, GeoPartial } from '../backend.js';
import { ipToBigInt } from '../backends/ip-number.js';
import type { ListDownload } from '../network-lists/update.js';
import { type GeofeedEntry, GeofeedError, type GeofeedProblem, parseGeofeed } from './parse.js';

/** Options of openGeofeedBackend. */
export interface GeofeedBackendOptions {
  /** Geofeed files: paths, or http(s) URLs fetched through `download`. Earlier feeds win on the same prefix. */
  feeds: readonly string[];
  /**
   * How a URL is fetched: pass an SSRF-guarded fetch for URLs a user gave (the CLI and the server
   * use `createGuardedFetch` of @svc/enricher). Required when a feed is a URL.
   */
  download?: ListDownload;
  /** A feed larger than this is refused, in bytes. @default 20_000_000 */
  maxBytes?: number;
  /** Rows read from one feed at most; the rest are reported, not read. @default 1_000_000 */
  maxRows?: number;
  /** Called with each feed's row problems (bad rows, overlaps) after every (re)load. @default none */
  onProblems?: (feed: string, problems: readonly GeofeedProblem[]) => void;
  /** @default 'geofeed' */
  id?: string;
}

/** A geofeed backend: describe() lists each feed with its version (date and hash). */
export interface GeofeedBackend extends GeoBackend {
  /** The problems of the data serving now, by feed. */
  problems(): ReadonlyMap<string, readonly GeofeedProblem[]>;
  /** Reads every feed again; a feed that cannot be read, or has no valid row, keeps the old data and this throws. */
  reload(): Promise<void>;
}

interface LoadedFeed {
  feed: string;
  entries: GeofeedEntry[];
  problems: GeofeedProblem[];
  /** File date (a path's mtime; a URL's fetch time). */
  date: Date;
  sha256: string;
}

/** Prefixes by length, each a map from the prefix's first address to its answer; lengths longest first. */
interface Table {
  lengths: number[];
  byLength: Map<number, Map<bigint, GeoPartial>>;
}

/**
 * A backend over operators' geofeeds (RFC 8805), meant to come before the databases: for the
 * prefixes it covers it answers country, ISO 3166-2 region code, city and postal code (longest
 * prefix wins, IPv4 and IPv6), and `sources` names it (`geofeed`) for those fields. Every row is
 * checked (parseGeofeed); bad rows are reported through `onProblems`, never fatal. A feed over the
 * size bound, unreadable, or without a single valid row is refused: on open that throws, on
 * reload the old data keeps serving and reload throws.
 */
export async function openGeofeedBackend(options: GeofeedBackendOptions): Promise<GeofeedBackend> {
  if (!Array.isArray(options.feeds) || options.feeds.length === 0)
    throw new TypeError('openGeofeedBackend needs at least one feed');
  for (const feed of options.feeds)
    if (isUrl(feed) && options.download === undefined)
      throw new TypeError(`geofeed ${feed}: a URL needs a download function (an SSRF-guarded fetch)`);
  const id = options.id ?? 'geofeed';
  let loaded = await loadAll(options);
  let tables = buildTables(loaded);
  let generation = 0;
  report(options, loaded);
  return {
    id,
    provides: ['country', 'region_code', 'city', 'postal_code', 'network'],
    get generation() {
      return generation;
    },
    lookup(ip, family) {
      const table = family === 4 ? tables.v4 : tables.v6;
      if (table.lengths.length === 0) return null;
      const value = ipToBigInt(ip, family);
      const bits = family === 4 ? 32 : 128;
      for (const length of table.lengths) {
        const start = (value >> BigInt(bits - length)) << BigInt(bits - length);
        const answer = table.byLength.get(length)?.get(start);
        if (answer !== undefined) return answer;
      }
      return null;
    },
    describe: (): GeoDatabaseDescription[] =>
      loaded.map((feed) => ({
        id,
        databaseType: 'geofeed',
        buildEpoch: feed.date,
        source: feed.feed,
        version: `${feed.date.toISOString().slice(0, 10)} sha256:${feed.sha256.slice(0, 12)}`,
        licence: "as published by the feed's operator (RFC 8805 geofeed)",
        attribution: null,
      })),
    problems: () => new Map(loaded.map((feed) => [feed.feed, feed.problems])),
    async reload() {
      const fresh = await loadAll(options);
      tables = buildTables(fresh);
      loaded = fresh;
      generation++;
      report(options, loaded);
    },
  };
}

function report(options: GeofeedBackendOptions, loaded: readonly LoadedFeed[]): void {
  if (!options.onProblems) return;
  for (const feed of loaded) if (feed.problems.length > 0) options.onProblems(feed.feed, feed.problems);
}

function isUrl(feed: string): boolean {
  return /^https?:\/\//i.test(feed);
}

async function loadAll(options: GeofeedBackendOptions): Promise<LoadedFeed[]> {
  return Promise.all(options.feeds.map((feed) => loadFeed(feed, options)));
}

async function loadFeed(feed: string, options: GeofeedBackendOptions): Promise<LoadedFeed> {
  const maxBytes = options.maxBytes ?? 20_000_000;
  let body: Buffer;
  let date: Date;
  if (isUrl(feed)) {
    const downloaded = await (options.download as ListDownload)(feed, maxBytes);
    body = typeof downloaded === 'string' ? Buffer.from(downloaded) : downloaded;
    date = new Date();
  } else {
    const info = await stat(feed);
    if (info.size > maxBytes) throw new GeofeedError(`geofeed ${feed}: larger than ${maxBytes} bytes`);
    body = await readFile(feed);
    date = info.mtime;
  }
  if (body.length > maxBytes) throw new GeofeedError(`geofeed ${feed}: larger than ${maxBytes} bytes`);
  let parsed: ReturnType<typeof parseGeofeed>;
  try {
    parsed = parseGeofeed(body.toString('utf8'), { maxRows: options.maxRows ?? 1_000_000 });
  } catch (error) {
    throw new GeofeedError(`geofeed ${feed}: ${(error as Error).message}`, { cause: error });
  }
  if (parsed.entries.length === 0) {
    const first = parsed.problems[0];
    throw new GeofeedError(
      `geofeed ${feed}: no valid row among ${parsed.rows}${first ? ` (line ${first.line}: ${first.message})` : ''}`,
    );
  }
  return {
    feed,
    entries: parsed.entries,
    problems: parsed.problems,
    date,
    sha256: createHash('sha256').update(body).digest('hex'),
  };
}

function buildTables(loaded: readonly LoadedFeed[]): { v4: Table; v6: Table } {
  const v4: Table = { lengths: [], byLength: new Map() };
  const v6: Table = { lengths: [], byLength: new Map() };
  for (const feed of loaded) {
    for (const entry of feed.entries) {
      const table = entry.family === 4 ? v4 : v6;
      let byStart = table.byLength.get(entry.prefixLength);
      if (byStart === undefined) {
        byStart = new Map();
        table.byLength.set(entry.prefixLength, byStart);
      }
      // An earlier feed's row for the same prefix wins.
      if (byStart.has(entry.start)) continue;
      const answer: GeoPartial = { country: entry.country, network: entry.network };
      if (entry.region_code !== null) answer.region_code = entry.region_code;
      if (entry.city !== null) answer.city = entry.city;
      if (entry.postal_code !== null) answer.postal_code = entry.postal_code;
      byStart.set(entry.start, Object.freeze(answer));
    }
  }
  for (const table of [v4, v6]) table.lengths = [...table.byLength.keys()].sort((a, b) => b - a);
  return { v4, v6 };
}
