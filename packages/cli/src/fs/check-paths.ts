import { constants } from 'node:fs';
import { access, open, stat, unlink } from 'node:fs/promises';
import { dirname } from 'node:path';
import { ServiceError } from '@svc/core';
import { describeCause, errnoCode, fileError } from './describe-error.js';

const fsFailure = (code: string) => Object.assign(new Error(code), { code });

// Checks open the file rather than call access(): access() asks about the real uid, which is not
// the one that will open the file in a set-uid process (or a test running as another user).

/** Opens and closes `full` with `flags`; throws the open's error. */
async function tryOpen(full: string, flags: string): Promise<void> {
  const handle = await open(full, flags);
  await handle.close();
}

/** Refuses a path that cannot be read as a file: missing, a directory, or not readable. */
export async function checkReadableFile(full: string, shown: string): Promise<void> {
  try {
    if ((await stat(full)).isDirectory()) throw fsFailure('EISDIR');
    await tryOpen(full, 'r');
  } catch (error) {
    throw fileError('read', shown, error);
  }
}

/**
 * Refuses, before any work, an output path that could not be created or overwritten: its folder
 * missing or not writable, or the path itself a directory or read-only. Nothing is created.
 */
export async function checkWritableFile(full: string, shown: string): Promise<void> {
  try {
    if ((await stat(full)).isDirectory()) throw fsFailure('EISDIR');
    await tryOpen(full, 'r+'); // neither creates nor truncates
    return;
  } catch (error) {
    if (errnoCode(error) !== 'ENOENT') throw fileError('write', shown, error);
  }
  await checkFolder(dirname(full), shown, 'write');
  try {
    // The folder allows it on paper; creating (and removing) the file itself is the real test.
    await tryOpen(full, 'wx');
    await unlink(full);
  } catch (error) {
    throw fileError('write', shown, error);
  }
}

/** The folder a new file goes in must exist and be writable. */
async function checkFolder(folder: string, shown: string, action: string): Promise<void> {
  try {
    if (!(await stat(folder)).isDirectory()) throw fsFailure('ENOTDIR');
    // Good enough for the folder's message; the caller's real open decides (see tryOpen).
    await access(folder, constants.W_OK | constants.X_OK);
  } catch (error) {
    const code = errnoCode(error);
    const why =
      code === 'ENOENT'
        ? `the folder ${folder} does not exist`
        : `the folder ${folder}: ${code === 'ENOTDIR' ? 'is not a folder' : describeCause(error)}`;
    throw new ServiceError('invalid_request', `cannot ${action} ${shown}: ${why}`, { cause: error });
  }
}

const SQLITE_HEADER = 'SQLite format 3\0';

/**
 * Checks a job database before SQLite opens it, so the user learns the real cause (SQLite says
 * "unable to open database file" for a missing file, a directory and a permission problem alike).
 * `mustExist`: readers never create a database; a run may (its folder is made by the caller).
 */
export async function checkDatabase(path: string, mustExist: boolean): Promise<void> {
  const what = 'open the job database';
  let size: number;
  try {
    const info = await stat(path);
    if (info.isDirectory()) throw fsFailure('EISDIR');
    size = info.size;
  } catch (error) {
    if (errnoCode(error) === 'ENOENT' && !mustExist) return;
    throw new ServiceError(
      errnoCode(error) === 'ENOENT' ? 'not_found' : 'invalid_request',
      `cannot ${what} ${path}: ${errnoCode(error) === 'ENOENT' ? 'no such file' : describeCause(error)}`,
      { cause: error },
    );
  }
  // SQLite also writes beside the file (-wal, -shm), so both the file and its folder must be writable.
  try {
    await tryOpen(path, 'r+');
  } catch (error) {
    throw fileError(what, path, error);
  }
  await checkFolder(dirname(path), path, what);
  if (size === 0) return;
  const handle = await open(path, 'r');
  try {
    const header = Buffer.alloc(SQLITE_HEADER.length);
    await handle.read(header, 0, header.length, 0);
    if (header.toString('latin1') !== SQLITE_HEADER) {
      throw new ServiceError(
        'invalid_request',
        `cannot ${what} ${path}: not a database (a job database is a SQLite file made by svc batch run)`,
      );
    }
  } finally {
    await handle.close();
  }
}
