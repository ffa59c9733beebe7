import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import {
  createPrivateDatabaseFile,
  makePrivateDir,
  openPrivateFileForWriting,
  writePrivateFileAtomic,
  writePrivateFileOnce,
} from './private-file.js';

const dir = mkdtempSync(join(tmpdir(), 'svc-private-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const mode = (path: string) => statSync(path).mode & 0o777;

describe('private files', () => {
  it('every helper makes what only the owner can read, whatever the umask', async () => {
    const previous = process.umask(0o000);
    try {
      createPrivateDatabaseFile(join(dir, 'a.db'));
      expect(mode(join(dir, 'a.db'))).toBe(0o600);
      expect(writePrivateFileOnce(join(dir, 'key'), 'one')).toBe(true);
      expect(mode(join(dir, 'key'))).toBe(0o600);
      await writePrivateFileAtomic(join(dir, 'atomic'), 'x');
      expect(mode(join(dir, 'atomic'))).toBe(0o600);
      const handle = await openPrivateFileForWriting(join(dir, 'out.csv'));
      await handle.close();
      expect(mode(join(dir, 'out.csv'))).toBe(0o600);
      await makePrivateDir(join(dir, 'sub', 'dir'));
      expect(mode(join(dir, 'sub', 'dir'))).toBe(0o700);
    } finally {
      process.umask(previous);
    }
  });

  it('writePrivateFileOnce keeps the first content; writePrivateFileAtomic replaces it whole', async () => {
    const path = join(dir, 'once');
    expect(writePrivateFileOnce(path, 'first')).toBe(true);
    expect(writePrivateFileOnce(path, 'second')).toBe(false);
    expect(readFileSync(path, 'utf8')).toBe('first');
    await writePrivateFileAtomic(path, 'third');
    expect(readFileSync(path, 'utf8')).toBe('third');
  });
});
