// Rebuilds data/network-lists/network-lists.mmdb and its manifest from the snapshot files, after a
// snapshot was replaced: `node --conditions=source --import tsx src/network-lists/build-snapshot.ts`
// (in packages/geo-resolver). `snapshot.test.ts` fails while the shipped file is out of date.

import { writeFile } from 'node:fs/promises';
import { BUNDLED_LISTS_MMDB, compileSnapshots, manifestPath } from './snapshot.js';

const { mmdb, manifest } = await compileSnapshots();
await writeFile(BUNDLED_LISTS_MMDB, mmdb);
await writeFile(manifestPath(BUNDLED_LISTS_MMDB), `${JSON.stringify(manifest, null, 2)}\n`);
console.log(
  `wrote ${BUNDLED_LISTS_MMDB} (${mmdb.length} bytes): ${manifest.datasets.map((d) => `${d.id} ${d.networks}`).join(', ')}`,
);
