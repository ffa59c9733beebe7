import { closeSync, fchmodSync, linkSync, openSync, unlinkSync, writeSync } from 'node:fs';

/**
 * Creates an empty file readable by its owner only, before SQLite opens it: the control plane
 * holds key hashes and sealed secrets. SQLite gives the `-wal` and `-shm` files the main file's
 * mode, so all three stay private. The mode is set again after opening because open() applies
 * the umask. An existing file is left as it is; a path that cannot be created is left for SQLite
 * to report.
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
