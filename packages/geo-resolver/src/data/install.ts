import { dirname } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { makePrivateDir, writePrivateFileAtomic } from '@svc/core';
import { openMmdbBackend } from '../backends/mmdb.js';

/**
 * The .mmdb file inside a download: the bytes themselves, a gzip of them (DB-IP's `.mmdb.gz`),
 * or the first `*.mmdb` entry of a tar or tar.gz archive (MaxMind's GeoLite2 `.tar.gz`).
 */
export function extractMmdb(download: Buffer): Buffer {
  let bytes = download;
  if (bytes[0] === 0x1f && bytes[1] === 0x8b) {
    try {
      bytes = gunzipSync(bytes);
    } catch (error) {
      throw new Error(`the download is not a valid gzip file: ${(error as Error).message}`, { cause: error });
    }
  }
  if (bytes.length > 512 && bytes.subarray(257, 262).toString('latin1') === 'ustar')
    return mmdbFromTar(bytes);
  return bytes;
}

function mmdbFromTar(tar: Buffer): Buffer {
  let offset = 0;
  while (offset + 512 <= tar.length) {
    const header = tar.subarray(offset, offset + 512);
    if (header.every((byte) => byte === 0)) break;
    const name = header.subarray(0, 100).toString('utf8').replace(/\0.*$/s, '');
    const prefix = header.subarray(345, 500).toString('utf8').replace(/\0.*$/s, '');
    const size = Number.parseInt(
      header.subarray(124, 136).toString('latin1').replace(/\0.*$/s, '').trim() || '0',
      8,
    );
    const type = String.fromCharCode(header[156] ?? 0);
    const start = offset + 512;
    if ((type === '0' || type === '\0') && `${prefix}${name}`.endsWith('.mmdb')) {
      if (start + size > tar.length) throw new Error(`the archive is truncated inside ${name}`);
      return Buffer.from(tar.subarray(start, start + size));
    }
    offset = start + Math.ceil(size / 512) * 512;
  }
  throw new Error('the archive holds no .mmdb file');
}

/**
 * Checks a downloaded database completely and only then puts it at `target`, by writing a
 * temporary file and renaming it (atomic on one file system); the file is 0600 and a created
 * directory 0700, whatever the umask. A corrupt download throws and
 * leaves the existing file untouched.
 */
export async function installMmdb(
  download: Buffer,
  target: string,
): Promise<{ databaseType: string; buildEpoch: Date }> {
  const bytes = extractMmdb(download);
  const backend = await openMmdbBackend({
    source: bytes,
    verify: 'full',
    schema: { name: 'check', provides: [], map: () => ({}) },
  });
  await makePrivateDir(dirname(target));
  await writePrivateFileAtomic(target, bytes);
  return { databaseType: backend.databaseType, buildEpoch: backend.buildEpoch };
}
