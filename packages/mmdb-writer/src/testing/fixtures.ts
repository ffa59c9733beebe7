import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { METADATA_MARKER } from '../build.js';

/** MaxMind's test databases in the repository's `fixtures/maxmind-db` (MIT or Apache-2.0). */
export const FIXTURES_DIR = fileURLToPath(new URL('../../../../fixtures/maxmind-db/', import.meta.url));

export function readFixture(relative: string): Buffer {
  return readFileSync(`${FIXTURES_DIR}${relative}`);
}

/** Byte sizes of the three sections of a .mmdb file, found the way readers find them. */
export function sectionSizes(file: Buffer, nodeCount: number, recordSize: number) {
  const tree = (nodeCount * recordSize * 2) / 8;
  const markerAt = file.lastIndexOf(METADATA_MARKER);
  if (markerAt === -1) throw new Error('No metadata marker');
  return { tree, data: markerAt - tree - 16, metadata: file.length - markerAt - METADATA_MARKER.length };
}
