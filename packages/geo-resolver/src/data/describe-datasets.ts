import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { GEO_DATASETS } from '../datasets.js';
import { updatedListsPath } from '../network-lists/backend.js';
import { BUNDLED_LISTS_MMDB, type ListsManifest, manifestPath } from '../network-lists/snapshot.js';
import { type DefaultDataFiles, defaultGeoCacheDir } from './default-location.js';

/** One dataset of the default data as `svc geo --sources` shows it. */
export interface DatasetInUse {
  id: string;
  title: string;
  publisher: string;
  /** The package version, or the list's snapshot or fetch date; null when it cannot be read. */
  version: string | null;
  licence: string;
  attribution: string | null;
  cadence: string;
}

/**
 * Every dataset of the default data (GEO_DATASETS) with the version in use: the data packages'
 * versions (from the files given, as `defaultDataFiles` finds them) and the lists' snapshot or
 * last fetch (from the compiled file serving them). Reads a few small files; opens no database.
 */
export async function describeDefaultDatasets(
  options: { files?: Partial<DefaultDataFiles>; cacheDir?: string } = {},
): Promise<DatasetInUse[]> {
  const cacheDir = options.cacheDir ?? defaultGeoCacheDir();
  const updated = updatedListsPath(cacheDir);
  const lists = await readManifest(existsSync(updated) ? updated : BUNDLED_LISTS_MMDB);
  const packageFile: Record<string, string | undefined> = {
    'dbip-city-lite': options.files?.cityIpv4,
    'ip-location-db-asn': options.files?.asnCsv?.[0],
  };
  return Promise.all(
    GEO_DATASETS.map(async (dataset) => {
      let version: string | null = null;
      if (dataset.kind === 'package') {
        const file = packageFile[dataset.id];
        version = file ? await packageVersion(file) : null;
      } else if (dataset.kind === 'network-list') {
        version = lists.datasets.find((entry) => entry.id === dataset.id)?.version ?? null;
      } else {
        version = dataset.snapshot;
      }
      const { id, title, publisher, licence, attribution, cadence } = dataset;
      return { id, title, publisher, version, licence, attribution, cadence };
    }),
  );
}

/** `name@version` of the npm package a data file belongs to (its package.json beside it), or null. */
export async function packageVersion(file: string): Promise<string | null> {
  try {
    const { name, version } = JSON.parse(await readFile(join(dirname(file), 'package.json'), 'utf8')) as {
      name?: string;
      version?: string;
    };
    return name && version ? `${name}@${version}` : null;
  } catch {
    return null;
  }
}

async function readManifest(path: string): Promise<ListsManifest> {
  try {
    return JSON.parse(await readFile(manifestPath(path), 'utf8')) as ListsManifest;
  } catch {
    return { datasets: [] };
  }
}
