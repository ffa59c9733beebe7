import { readFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { makePrivateDir, writePrivateFileAtomic } from '@svc/core';
import { numericRangeToCidrs } from '../data/ranges.js';
import { NETWORK_LIST_DATASETS, type NetworkListDataset } from '../datasets.js';
import { updatedListsPath } from './backend.js';
import { compileNetworkLists } from './compile.js';
import { type ListedRange, NetworkListError, parseNetworkList } from './parse.js';
import { BUNDLED_LISTS_DIR, type ListsManifest, manifestPath } from './snapshot.js';

/** Fetches one URL's body, at most `maxBytes` (larger bodies must fail). The caller's SSRF guard goes here. */
export type ListDownload = (url: string, maxBytes: number) => Promise<Buffer | string>;

/** Options of updateNetworkLists. */
export interface UpdateNetworkListsOptions {
  /** The geo cache dir; fresh lists go to `<cacheDir>/lists/`. */
  cacheDir: string;
  /** How a URL is fetched (through an SSRF guard for URLs a user gave). */
  download: ListDownload;
  /** URLs by dataset id, replacing the registry's (`svc geo update --list-url tor-exits=…`). */
  urls?: Readonly<Record<string, readonly string[]>>;
  /** The datasets to refresh. @default every network list */
  datasets?: readonly string[];
  /** @default () => new Date() */
  now?: () => Date;
}

/** What happened to one list. */
export interface ListUpdateOutcome {
  id: string;
  /** `updated`: the fresh copy serves now; `kept`: it failed a check and the previous data stays. */
  status: 'updated' | 'kept';
  /** Networks serving now. */
  networks: number;
  /** Networks before. */
  previous: number;
  /** Special-purpose networks the fresh copy named and that were left out. */
  dropped: number;
  /** Why a fresh copy was refused. */
  error?: string;
}

/** What updateNetworkLists did. */
export interface NetworkListsUpdate {
  /** The compiled file serving the lists (written only when a list changed). */
  path: string;
  changed: boolean;
  lists: ListUpdateOutcome[];
}

/** A fresh list smaller than this share of the previous one is refused (a list that suddenly shrinks by 90 %). */
export const MIN_KEPT_SHARE = 0.1;

/**
 * Fetches fresh copies of the network lists and swaps them in only after every check: the body is
 * within the dataset's size bound and not empty, every line is a network in the expected format
 * (a truncated or HTML answer fails here), special-purpose networks are left out, there are at
 * least `minCount` networks, and not fewer than 10 % of the previous copy. A list that fails keeps
 * its previous data (the last good fetch, else the shipped snapshot); the others are compiled
 * with it into `<cacheDir>/lists/network-lists.mmdb` (private files, written atomically: the
 * manifest, then the mmdb, whose rename is the swap). Nothing is written when no list changed.
 */
export async function updateNetworkLists(options: UpdateNetworkListsOptions): Promise<NetworkListsUpdate> {
  const now = options.now ?? (() => new Date());
  const dir = join(options.cacheDir, 'lists');
  const path = updatedListsPath(options.cacheDir);
  const wanted = new Set(options.datasets ?? NETWORK_LIST_DATASETS.map((dataset) => dataset.id));
  for (const id of Object.keys(options.urls ?? {})) {
    if (!NETWORK_LIST_DATASETS.some((dataset) => dataset.id === id))
      throw new TypeError(
        `no network list "${id}"; the lists are ${NETWORK_LIST_DATASETS.map((d) => d.id).join(', ')}`,
      );
  }
  const previousManifest = await readJson<ListsManifest>(manifestPath(path));
  const entries: ListsManifest['datasets'] = [];
  const inputs: Array<{ dataset: NetworkListDataset; ranges: readonly ListedRange[] }> = [];
  const outcomes: ListUpdateOutcome[] = [];
  const fresh = new Map<string, ListedRange[]>();

  for (const dataset of NETWORK_LIST_DATASETS) {
    const previous = await previousList(dir, dataset);
    const previousEntry = previousManifest?.datasets.find((entry) => entry.id === dataset.id) ?? {
      id: dataset.id,
      version: dataset.snapshot,
      networks: previous.length,
      dropped: 0,
      source: dataset.snapshotSource,
    };
    if (!wanted.has(dataset.id)) {
      inputs.push({ dataset, ranges: previous });
      entries.push(previousEntry);
      continue;
    }
    const urls = options.urls?.[dataset.id] ?? dataset.urls;
    try {
      const parsed = await fetchList(dataset, urls, options.download);
      const count = parsed.ranges.length;
      if (count < dataset.minCount)
        throw new NetworkListError(
          `only ${count} networks, fewer than the ${dataset.minCount} this list always has (truncated or emptied?)`,
        );
      if (count < previous.length * MIN_KEPT_SHARE)
        throw new NetworkListError(
          `${count} networks where there were ${previous.length}: it shrank by ${Math.round((1 - count / previous.length) * 100)} %, more than 90 %`,
        );
      fresh.set(dataset.id, parsed.ranges);
      inputs.push({ dataset, ranges: parsed.ranges });
      entries.push({
        id: dataset.id,
        version: now().toISOString(),
        networks: count,
        dropped: parsed.dropped.length,
        source: urls.join(' + '),
      });
      outcomes.push({
        id: dataset.id,
        status: 'updated',
        networks: count,
        previous: previous.length,
        dropped: parsed.dropped.length,
      });
    } catch (error) {
      inputs.push({ dataset, ranges: previous });
      entries.push(previousEntry);
      outcomes.push({
        id: dataset.id,
        status: 'kept',
        networks: previous.length,
        previous: previous.length,
        dropped: 0,
        error: (error as Error).message,
      });
    }
  }

  if (fresh.size === 0) return { path, changed: false, lists: outcomes };
  const mmdb = compileNetworkLists(inputs, 'svc network lists (fetched by svc geo update --lists)', now());
  await makePrivateDir(dirname(path));
  for (const [id, ranges] of fresh) await writePrivateFileAtomic(join(dir, `${id}.txt`), asText(ranges));
  await writePrivateFileAtomic(manifestPath(path), `${JSON.stringify({ datasets: entries }, null, 2)}\n`);
  await writePrivateFileAtomic(path, mmdb);
  return { path, changed: true, lists: outcomes };
}

/** Downloads and parses a list's URLs (their bodies concatenated), each within the size bound. */
async function fetchList(dataset: NetworkListDataset, urls: readonly string[], download: ListDownload) {
  const bodies: string[] = [];
  let total = 0;
  for (const url of urls) {
    const body = await download(url, dataset.maxBytes - total);
    const text = typeof body === 'string' ? body : body.toString('utf8');
    total += Buffer.byteLength(text);
    if (total > dataset.maxBytes) throw new NetworkListError(`larger than ${dataset.maxBytes} bytes`);
    if (text.trim() === '') throw new NetworkListError(`${url} answered an empty body`);
    // Text lists end with a line break; one cut off mid-transfer may end in a valid-looking prefix
    // of an address (45.84.107.1 of 45.84.107.172), which no syntax check can catch.
    if (dataset.format !== 'json' && !text.endsWith('\n'))
      throw new NetworkListError(`${url} does not end with a line break: the file was cut off`);
    bodies.push(text);
  }
  if (dataset.format === 'json' && bodies.length > 1) {
    return bodies
      .map((text, index) => parseNetworkList(text, 'json', urls[index] as string))
      .reduce((all, one) => ({
        ranges: [...all.ranges, ...one.ranges],
        dropped: [...all.dropped, ...one.dropped],
      }));
  }
  return parseNetworkList(bodies.join(''), dataset.format, urls.join(' + '));
}

/** The list serving now: the last good fetch, else the shipped snapshot. */
async function previousList(dir: string, dataset: NetworkListDataset): Promise<ListedRange[]> {
  const fetched = await readFile(join(dir, `${dataset.id}.txt`), 'utf8').catch(() => null);
  const text = fetched ?? (await readFile(join(BUNDLED_LISTS_DIR, dataset.file), 'utf8'));
  return parseNetworkList(text, 'lines', dataset.id).ranges;
}

function asText(ranges: readonly ListedRange[]): string {
  return `${ranges.flatMap((range) => numericRangeToCidrs(range.start, range.end, range.family)).join('\n')}\n`;
}

async function readJson<T>(path: string): Promise<T | null> {
  try {
    return JSON.parse(await readFile(path, 'utf8')) as T;
  } catch {
    return null;
  }
}
