import { ServiceError } from '@svc/core';
import { NETWORK_LIST_DATASETS, type NetworkListsUpdate, updateNetworkLists } from '@svc/geo-resolver';
import { geoDir } from './data-dir.js';
import { guardedDownload } from './guarded-download.js';
import type { CliIo } from './io.js';
import { UsageError } from './usage-error.js';

/** `--list-url ID=URL` (repeatable): the URLs to fetch a list from instead of the registry's. */
export function listUrls(values: readonly string[] | undefined): Record<string, string[]> {
  const urls: Record<string, string[]> = {};
  for (const value of values ?? []) {
    const at = value.indexOf('=');
    const id = value.slice(0, at);
    if (at <= 0 || !NETWORK_LIST_DATASETS.some((dataset) => dataset.id === id))
      throw new UsageError(
        `--list-url takes ID=URL with an ID of ${NETWORK_LIST_DATASETS.map((dataset) => dataset.id).join(', ')}`,
        'geo',
      );
    let url: URL;
    try {
      url = new URL(value.slice(at + 1));
    } catch {
      throw new UsageError(`--list-url ${id}=: not a URL`, 'geo');
    }
    if (url.protocol !== 'https:' && url.protocol !== 'http:')
      throw new UsageError(`--list-url ${id}=: only http and https URLs`, 'geo');
    urls[id] = [...(urls[id] ?? []), url.href];
  }
  return urls;
}

/**
 * `svc geo update --lists`: fetches every network list (or the ones given by --list-url) through
 * the SSRF guard (private and loopback addresses refused unless allowPrivate), verifies each and
 * swaps in the good ones; a list that fails keeps its data.
 */
export async function updateLists(
  io: CliIo,
  urls: Record<string, string[]>,
  allowPrivate: boolean,
): Promise<NetworkListsUpdate> {
  const download = guardedDownload({
    allowPrivate,
    timeoutMs: 120_000,
    // The largest list's bound; each dataset's own bound is checked as well.
    maxBytes: Math.max(...NETWORK_LIST_DATASETS.map((dataset) => dataset.maxBytes)),
    onFetch: (url) => io.stderr.write(`geo update: fetching ${url}\n`),
  });
  try {
    return await updateNetworkLists({
      cacheDir: geoDir(io),
      download,
      urls,
      ...(Object.keys(urls).length > 0 ? { datasets: Object.keys(urls) } : {}),
    });
  } catch (error) {
    throw new ServiceError(
      'unprocessable',
      `the network lists were not updated: ${(error as Error).message}`,
      {
        cause: error,
      },
    );
  }
}
