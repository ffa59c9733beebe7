import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { GeoDatabaseDescription } from '../backend.js';
import { type MmdbBackend, openMmdbBackend } from '../backends/mmdb.js';
import { networkListsSchema } from '../backends/mmdb-schemas.js';
import { geoDataset } from '../datasets.js';
import { BUNDLED_LISTS_MMDB, type ListsManifest, manifestPath } from './snapshot.js';

/** Where `svc geo update --lists` installs fresher lists: `<cacheDir>/lists/network-lists.mmdb`. */
export const updatedListsPath = (cacheDir: string) => join(cacheDir, 'lists', 'network-lists.mmdb');

/** Options of openNetworkListsBackend. */
export interface NetworkListsBackendOptions {
  /**
   * A compiled lists file (with its `.json` manifest beside it).
   * @default the updated file in `cacheDir` when there is one, else the snapshot shipped with this package
   */
  path?: string;
  /** Where `svc geo update --lists` put fresher lists. */
  cacheDir?: string;
  /** @default 'full' for updated files, 'tree' for the shipped one (it is tested at build) */
  verify?: 'full' | 'tree' | 'none';
}

/**
 * The network lists (Tor exits, cloud and hosting ranges, iCloud Private Relay) as one backend:
 * one tree walk answers every flag. `describe()` lists each dataset with its version, licence and
 * attribution (from the file's manifest and the GEO_DATASETS registry).
 */
export async function openNetworkListsBackend(
  options: NetworkListsBackendOptions = {},
): Promise<MmdbBackend> {
  const updated = options.cacheDir ? updatedListsPath(options.cacheDir) : undefined;
  const path = options.path ?? (updated && existsSync(updated) ? updated : BUNDLED_LISTS_MMDB);
  const backend = await openMmdbBackend({
    source: path,
    schema: networkListsSchema,
    id: 'network-lists',
    verify: options.verify ?? (path === BUNDLED_LISTS_MMDB ? 'tree' : 'full'),
  });
  let manifest = await readManifest(path);
  const reload = backend.reload;
  return Object.assign(backend, {
    describe: (): GeoDatabaseDescription[] =>
      manifest.datasets.map((entry) => {
        const dataset = geoDataset(entry.id);
        return {
          id: entry.id,
          databaseType: NETWORK_LIST_TYPE,
          buildEpoch: backend.buildEpoch,
          source: path,
          version: entry.version,
          ...(dataset ? { licence: dataset.licence, attribution: dataset.attribution } : {}),
        };
      }),
    reload: async () => {
      await reload?.();
      manifest = await readManifest(path);
    },
  });
}

/** The databaseType the lists' datasets are described with (the manifest says where each list came from). */
export const NETWORK_LIST_TYPE = 'network-list';

async function readManifest(path: string): Promise<ListsManifest> {
  try {
    return JSON.parse(await readFile(manifestPath(path), 'utf8')) as ListsManifest;
  } catch {
    return { datasets: [] };
  }
}
