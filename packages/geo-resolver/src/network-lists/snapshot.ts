import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { NETWORK_LIST_DATASETS, type NetworkListDataset } from '../datasets.js';
import { type CompiledListInput, compileNetworkLists } from './compile.js';
import { parseNetworkList } from './parse.js';

/** The shipped snapshots: `data/network-lists/` of this package (from src/ and dist/ alike). */
export const BUNDLED_LISTS_DIR = fileURLToPath(new URL('../../data/network-lists/', import.meta.url));

/** The compiled lookup the package ships, built from the snapshots by `build-snapshot.ts`. */
export const BUNDLED_LISTS_MMDB = join(BUNDLED_LISTS_DIR, 'network-lists.mmdb');

/** What a compiled lists file was built from: each dataset's version and count (the sidecar `.json`). */
export interface ListsManifest {
  datasets: Array<{
    id: string;
    /** The snapshot date, or when a fresh copy was fetched (ISO 8601). */
    version: string;
    networks: number;
    /** Special-purpose networks the list named and that were left out. */
    dropped: number;
    /** Where the copy came from (the snapshot's mirror, or the URLs fetched). */
    source: string;
  }>;
}

/** The sidecar manifest's path of a compiled lists file. */
export const manifestPath = (mmdbPath: string) => mmdbPath.replace(/\.mmdb$/, '.json');

/** Parses the shipped snapshot files (one network per line) of the given datasets. */
export async function readSnapshots(
  datasets: readonly NetworkListDataset[] = NETWORK_LIST_DATASETS,
): Promise<Array<CompiledListInput & { dropped: string[] }>> {
  return Promise.all(
    datasets.map(async (dataset) => {
      const text = await readFile(join(BUNDLED_LISTS_DIR, dataset.file), 'utf8');
      const parsed = parseNetworkList(text, 'lines', dataset.file);
      return { dataset, ranges: parsed.ranges, dropped: parsed.dropped };
    }),
  );
}

/** Compiles the shipped snapshots; the build epoch is the newest snapshot's date, so builds are reproducible. */
export async function compileSnapshots(): Promise<{ mmdb: Buffer; manifest: ListsManifest }> {
  const inputs = await readSnapshots();
  const newest = inputs
    .map(({ dataset }) => dataset.snapshot)
    .sort()
    .at(-1) as string;
  const mmdb = compileNetworkLists(
    inputs,
    'svc network lists (snapshots shipped with @svc/geo-resolver)',
    new Date(`${newest}T00:00:00Z`),
  );
  const manifest: ListsManifest = {
    datasets: inputs.map(({ dataset, ranges, dropped }) => ({
      id: dataset.id,
      version: dataset.snapshot,
      networks: ranges.length,
      dropped: dropped.length,
      source: dataset.snapshotSource,
    })),
  };
  return { mmdb, manifest };
}
