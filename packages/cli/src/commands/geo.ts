import { resolve } from 'node:path';
import { ServiceError } from '@svc/core';
import {
  defaultDataFiles,
  describeDefaultDatasets,
  type GeoResult,
  MMDB_SCHEMAS,
  type MmdbSchema,
  mmdbSchemaByName,
} from '@svc/geo-resolver';
import type { Command } from '../command.js';
import { geoDir } from '../data-dir.js';
import { EXIT } from '../exit-codes.js';
import { checkReadableFile } from '../fs/check-paths.js';
import { openCliGeoResolver } from '../geo-data.js';
import { listUrls, updateLists } from '../geo-lists.js';
import { sourceUrl, UPDATE_SOURCES, type UpdateSource, updateGeoData } from '../geo-update.js';
import { openCliGeofeed } from '../geofeed.js';
import { readRecords } from '../input/read-records.js';
import type { CliIo } from '../io.js';
import { createProgress } from '../output/progress.js';
import { openResultWriter, prepareOutput } from '../output/result-writer.js';
import { renderTable } from '../output/table.js';
import { printJson } from '../output.js';
import { UsageError } from '../usage-error.js';

type Row = GeoResult | { ip: string; error: { code: string; message: string } };

const SCHEMA_NAMES = MMDB_SCHEMAS.map((schema) => schema.name).join(', ');

/** `--schema`: a schema by name, for the --db files. */
function schemaOption(name: unknown, databases: unknown): MmdbSchema | undefined {
  if (name === undefined) return undefined;
  if (databases === undefined) throw new UsageError('--schema applies to --db files; give --db too', 'geo');
  const schema = mmdbSchemaByName(name as string);
  if (!schema) throw new UsageError(`--schema must be one of ${SCHEMA_NAMES}`, 'geo');
  return schema;
}

/** `svc geo`: geolocate addresses from arguments or a file. */
export const geoCommand: Command = {
  name: 'geo',
  summary: 'Geolocate IP addresses (country, city, coordinates, timezone, ASN, flags)',
  usage: [
    '<ip...> [--json] [--db file.mmdb ... [--schema NAME]] [--geofeed path|url ...]',
    '--file ips.txt [--out results.ndjson|csv]',
    '--sources',
    'update --source dbip-lite|geolite2 [--license-key K] [--url U]',
    'update --lists [--list-url ID=URL ...] [--allow-private-list-url]',
  ],
  details: `Options:
  --file <path>   read addresses from a .txt (one per line) or .csv (first column) file
  --out <path>    write results to .ndjson or .csv instead of the terminal (created private,
                  0600; CSV rows carry error_code and error_message for addresses not located)
  --db <path>     use this MaxMind-format file (repeat for several; first non-empty field wins)
  --schema <name> read the --db files with this schema instead of the one their database_type
                  names (for files of a type svc does not know): ${SCHEMA_NAMES}
  --geofeed <path|url>
                  an operator's geofeed (RFC 8805 CSV; repeat for several): it outranks the data
                  for the prefixes it covers (sources say geofeed); URLs are fetched through the
                  SSRF guard (--allow-private-geofeed-url allows private and loopback addresses,
                  for testing); bad rows are reported on stderr with their line numbers
  --sources       list every dataset of the default data: version, licence, attribution (with
                  --geofeed, each feed first with its file date and hash)
  update          download, verify and install fresher city data (--source dbip-lite|geolite2,
                  --license-key for GeoLite2, --url to download from elsewhere); a corrupt or
                  failed download never replaces the installed file
  update --lists  fetch fresh copies of the network lists (Tor exits, cloud ranges, iCloud
                  Private Relay) through the SSRF guard; each is checked (format, size, minimum
                  count, no private ranges, not 90 % smaller) and a list that fails keeps its data.
                  --list-url ID=URL fetches that list from URL instead (only the lists named);
                  --allow-private-list-url allows private and loopback addresses (testing)
Invalid, private or reserved addresses are reported per address (code invalid_ip) and make the
exit code 1. Default data: DB-IP City Lite and ASN data via ip-location-db (CC BY 4.0).`,
  options: {
    file: { type: 'string' },
    out: { type: 'string' },
    db: { type: 'string', multiple: true },
    schema: { type: 'string' },
    sources: { type: 'boolean' },
    source: { type: 'string' },
    'license-key': { type: 'string' },
    url: { type: 'string' },
    lists: { type: 'boolean' },
    'list-url': { type: 'string', multiple: true },
    'allow-private-list-url': { type: 'boolean' },
    geofeed: { type: 'string', multiple: true },
    'allow-private-geofeed-url': { type: 'boolean' },
  },
  async run({ io, flags, values, positionals }) {
    if (values.sources)
      return sources(
        io,
        flags.json,
        (values.geofeed as string[] | undefined) ?? [],
        values['allow-private-geofeed-url'] === true,
      );
    if (positionals[0] === 'update') return update(io, flags.json, values, positionals.slice(1));
    const file = values.file as string | undefined;
    if (file && positionals.length > 0) throw new UsageError('give addresses or --file, not both', 'geo');
    if (!file && positionals.length === 0)
      throw new UsageError('give at least one IP address or --file', 'geo');
    if (values.out && !file) throw new UsageError('--out needs --file', 'geo');
    const target = values.out ? await prepareOutput(values.out as string, io.cwd, 'geo') : undefined;
    const schema = schemaOption(values.schema, values.db);
    const inputs = file ? await readRecords(file, io.cwd) : positionals;
    const databases = (values.db as string[] | undefined) ?? [];
    for (const path of databases) await checkReadableFile(resolve(io.cwd, path), path);
    const feeds = (values.geofeed as string[] | undefined) ?? [];
    const geofeed =
      feeds.length > 0
        ? await openCliGeofeed(io, feeds, values['allow-private-geofeed-url'] === true)
        : undefined;
    const resolver = await openCliGeoResolver(
      io,
      databases.map((path) => resolve(io.cwd, path)),
      schema,
      geofeed,
    );
    // The batch CSV's error columns, so a file row says why an address has no location.
    const writer = target ? await openResultWriter(target, { leading: GEO_LEADING_COLUMNS }) : undefined;
    const progress = file ? createProgress(io, inputs.length, 'geo') : undefined;
    const rows: Row[] = [];
    let failures = 0;
    try {
      inputs.forEach((input, index) => {
        let row: Row;
        try {
          row = resolver.lookup(input);
        } catch (error) {
          if (!ServiceError.is(error)) throw error;
          failures++;
          row = { ip: input, error: { code: error.code, message: error.message } };
        }
        if (writer)
          writer.write(target?.format === 'csv' ? csvRow(row) : (row as unknown as Record<string, unknown>));
        else rows.push(row);
        if (index % 1000 === 0 || index === inputs.length - 1) progress?.update(index + 1);
      });
    } finally {
      progress?.done();
      resolver.close();
    }
    await writer?.close();
    if (writer)
      io.stderr.write(`geo: ${inputs.length - failures} located, ${failures} invalid → ${values.out}\n`);
    else if (flags.json) printJson(io, rows.length === 1 && !file ? rows[0] : rows);
    else io.stdout.write(table(rows));
    return failures > 0 ? EXIT.failure : EXIT.ok;
  },
};

const GEO_LEADING_COLUMNS = ['ip', 'error_code', 'error_message'];

/** A CSV row: the address, the error columns (empty when located), then the result's fields. */
function csvRow(row: Row): Record<string, unknown> {
  if ('error' in row) return { ip: row.ip, error_code: row.error.code, error_message: row.error.message };
  const { ip, ...fields } = row;
  return { ip, error_code: '', error_message: '', ...fields };
}

/** Every dataset of the default data with its version, licence and attribution. */
async function sources(io: CliIo, json: boolean, feeds: string[], allowPrivate: boolean) {
  let files: ReturnType<typeof defaultDataFiles> | undefined;
  try {
    files = defaultDataFiles(import.meta.url);
  } catch {
    // Data packages not installed: their versions are unknown (null), the rest still lists.
  }
  const datasets = await describeDefaultDatasets({
    cacheDir: geoDir(io),
    ...(files ? { files } : {}),
  });
  // The --geofeed feeds, each with its version (file date and hash), before the data they outrank.
  if (feeds.length > 0) {
    const geofeed = await openCliGeofeed(io, feeds, allowPrivate);
    datasets.unshift(
      ...(geofeed.describe?.() ?? []).map((feed) => ({
        id: feed.id,
        title: `RFC 8805 geofeed ${feed.source}`,
        publisher: "the feed's operator",
        version: feed.version ?? null,
        licence: feed.licence ?? 'unknown',
        attribution: null,
        cadence: 'read again on every run',
      })),
    );
  }
  if (json) {
    printJson(io, { datasets });
    return EXIT.ok;
  }
  for (const dataset of datasets) {
    io.stdout.write(`${dataset.id}: ${dataset.title}\n`);
    io.stdout.write(`  version: ${dataset.version ?? 'unknown'}; changes ${dataset.cadence}\n`);
    io.stdout.write(`  publisher: ${dataset.publisher}\n  licence: ${dataset.licence}\n`);
    if (dataset.attribution) io.stdout.write(`  attribution: ${dataset.attribution}\n`);
  }
  return EXIT.ok;
}

async function update(io: CliIo, json: boolean, values: Record<string, unknown>, extra: string[]) {
  if (extra.length > 0) throw new UsageError(`unexpected arguments after update: ${extra.join(' ')}`, 'geo');
  if (values.lists) return updateListsCommand(io, json, values);
  if (values['list-url'] !== undefined || values['allow-private-list-url'])
    throw new UsageError('--list-url and --allow-private-list-url go with update --lists', 'geo');
  const source = values.source as string | undefined;
  if (!source || !(UPDATE_SOURCES as readonly string[]).includes(source)) {
    throw new UsageError(`--source must be one of ${UPDATE_SOURCES.join(', ')}`, 'geo');
  }
  const url =
    (values.url as string | undefined) ??
    sourceUrl(source as UpdateSource, values['license-key'] as string | undefined, new Date());
  io.stderr.write(`geo update: downloading ${source}…\n`);
  const installed = await updateGeoData(io, source as UpdateSource, url);
  if (json) printJson(io, installed);
  else
    io.stdout.write(
      `installed ${installed.database_type} built ${installed.built_at.slice(0, 10)} → ${installed.path}\n`,
    );
  return EXIT.ok;
}

async function updateListsCommand(io: CliIo, json: boolean, values: Record<string, unknown>) {
  if (values.source !== undefined || values.url !== undefined)
    throw new UsageError('update --lists takes --list-url, not --source or --url', 'geo');
  const report = await updateLists(
    io,
    listUrls(values['list-url'] as string[] | undefined),
    values['allow-private-list-url'] === true,
  );
  if (json) printJson(io, { changed: report.changed, path: report.path, lists: report.lists });
  else {
    for (const list of report.lists) {
      io.stdout.write(
        list.status === 'updated'
          ? `${list.id}: updated, ${list.networks} networks (was ${list.previous})${list.dropped ? `, ${list.dropped} private or reserved left out` : ''}\n`
          : `${list.id}: kept the previous ${list.networks} networks: ${list.error}\n`,
      );
    }
    if (report.changed) io.stdout.write(`installed → ${report.path}\n`);
  }
  // Every list refused: nothing changed, and the caller should know.
  return report.lists.some((list) => list.status === 'updated') ? EXIT.ok : EXIT.failure;
}

/** `lat,lon`, with the data's accuracy radius when it has one (`±20 km`); nothing is invented. */
function coordinates(row: GeoResult): string {
  if (row.latitude == null) return '';
  const radius = row.accuracy_radius_km == null ? '' : ` ±${row.accuracy_radius_km} km`;
  return `${row.latitude.toFixed(4)},${row.longitude?.toFixed(4)}${radius}`;
}

function table(rows: Row[]): string {
  return renderTable(
    ['ip', 'country', 'region', 'city', 'lat,lon', 'timezone', 'asn', 'org', 'flags'],
    rows.map((row) => {
      if ('error' in row) return [row.ip, '', '', '', '', '', '', '', `error: ${row.error.message}`];
      const flags = [
        row.is_proxy && 'proxy',
        row.is_vpn && 'vpn',
        row.is_hosting && 'hosting',
        row.is_tor && 'tor',
        row.is_relay && 'relay',
        // The network type when it adds something to the flags.
        row.network_type && row.network_type !== 'hosting' && row.network_type,
      ];
      return [
        row.ip,
        row.country ?? '',
        row.region ?? '',
        row.city ?? '',
        coordinates(row),
        row.timezone ?? '',
        row.asn == null ? '' : `AS${row.asn}`,
        row.org ?? '',
        flags.filter(Boolean).join(' '),
      ];
    }),
  );
}
