import { closeSync, fchmodSync, openSync } from 'node:fs';

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
