import { randomBytes } from 'node:crypto';
import { closeSync, fchmodSync, linkSync, openSync, unlinkSync, writeSync } from 'node:fs';
import { type FileHandle, mkdir, open, rename, rm, writeFile } from 'node:fs/promises';

/*
 * Files readable by their owner only (0600) and directories only the owner can enter (0700): our
 * files hold people's addresses, key hashes and sealed secrets. The one home of these helpers;
 * each states how it deals with the umask (which can only remove bits) and with concurrent
 * writers.
 */

/**
 * Creates an empty file readable by its owner only, before SQLite opens it: our databases hold
 * people's addresses, key hashes and sealed secrets. SQLite gives the `-wal` and `-shm` files the
 * main file's mode, so all three stay private. The mode is set again after opening because
 * open() applies the umask (a umask of 0o277 would leave the owner unable to write). An existing
 * file is left as it is, and a path that cannot be created is left for SQLite to report.
 */
export function createPrivateDatabaseFile(path: string): void {
  // ':memory:' and '' are SQLite's in-memory and temporary databases: no file of ours.
  if (path === ':memory:' || path === '') return;
  let fd: number;
  try {
    fd = openSync(path, 'wx', 0o600);
  } catch {
    return;
  }
  try {
    fchmodSync(fd, 0o600);
  } finally {
    closeSync(fd);
  }
}

/**
 * Writes `content` to `path` with mode 0600 unless the file exists, atomically: the content is
 * written to a private temporary file first and hard-linked into place, so a second process
 * starting at the same moment reads either no file or the whole one, never a half-written one.
 * Returns false when the file already existed (the caller reads it instead).
 */
export function writePrivateFileOnce(path: string, content: string): boolean {
  const temporary = `${path}.${process.pid}.${Date.now()}.tmp`;
  const fd = openSync(temporary, 'wx', 0o600);
  try {
    fchmodSync(fd, 0o600);
    writeSync(fd, content);
  } finally {
    closeSync(fd);
  }
  try {
    linkSync(temporary, path);
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw error;
  } finally {
    unlinkSync(temporary);
  }
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

/**
 * Opens `path` for writing (created or truncated) readable only by its owner. The mode is set
 * again after opening because open() applies the umask and leaves an existing file's mode alone;
 * only on a regular file: a device or pipe keeps its own mode.
 */
export async function openPrivateFileForWriting(path: string): Promise<FileHandle> {
  const handle = await open(path, 'w', 0o600);
  try {
    if ((await handle.stat()).isFile()) await handle.chmod(0o600);
  } catch (error) {
    await handle.close();
    throw error;
  }
  return handle;
}

/**
 * Creates a directory (and missing parents) readable only by its owner. The mode is given
 * explicitly because the default (0777 minus the umask) makes it world-readable under the usual
 * 022 umask; a umask can only remove bits, so 0700 holds whatever it is.
 */
export async function makePrivateDir(path: string): Promise<void> {
  await mkdir(path, { recursive: true, mode: 0o700 });
}
