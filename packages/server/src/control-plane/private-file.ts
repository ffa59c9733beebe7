import { closeSync, fchmodSync, linkSync, openSync, unlinkSync, writeSync } from 'node:fs';

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
