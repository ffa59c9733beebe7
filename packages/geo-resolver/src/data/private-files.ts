import { randomBytes } from 'node:crypto';
import { mkdir, rename, rm, writeFile } from 'node:fs/promises';

/**
 * Creates a directory (and missing parents) readable only by its owner. The mode is given
 * explicitly because the default (0777 minus the umask) makes it world-readable under the usual
 * 022 umask; a umask can only remove bits, so 0700 holds whatever it is.
 */
export async function makePrivateDir(path: string): Promise<void> {
  await mkdir(path, { recursive: true, mode: 0o700 });
}

/**
 * Writes a file readable only by its owner (0600) so that readers never see half of it: the bytes
 * go to a temporary name unique to this process and call, which is then renamed over `path`
 * (atomic on one file system). Several processes may write the same file at once; the last
 * rename wins and every reader sees one complete version.
 */
export async function writePrivateFileAtomic(path: string, data: string | Uint8Array): Promise<void> {
  const temporary = `${path}.${process.pid}.${randomBytes(6).toString('hex')}.tmp`;
  try {
    await writeFile(temporary, data, { mode: 0o600, flag: 'wx' });
    await rename(temporary, path);
  } catch (error) {
    await rm(temporary, { force: true }).catch(() => {});
    throw error;
  }
}
