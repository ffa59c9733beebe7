// Child-process entry of compileAsnFileInChild: `<target> <description> <csv>...`; compiles the
// CSVs and writes the mmdb file to target (0600, atomically). Exits non-zero with the error on stderr.

import { writePrivateFileAtomic } from '@svc/core';
import { compileAsnCsv } from './compile-asn.js';

const [target, description, ...paths] = process.argv.slice(2);
if (!target || description === undefined || paths.length === 0) {
  throw new Error('usage: compile-asn-child <target> <description> <csv>...');
}
await writePrivateFileAtomic(target, await compileAsnCsv(paths, description));
