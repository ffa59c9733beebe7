import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { writePrivateFileAtomic } from '@svc/core';

/**
 * Which files were fully verified, as `path → size:mtime`, kept in `verified.json` in the cache
 * dir so each file is verified once, not on every start.
 */
export class VerificationStamps {
  private readonly file: string;
  private stamps: Record<string, string> = {};
  private changed = false;

  constructor(dir: string) {
    this.file = join(dir, 'verified.json');
  }

  async load(): Promise<void> {
    this.stamps = await readStampFile(this.file);
  }

  isVerified(path: string, fingerprint: string): boolean {
    return this.stamps[path] === fingerprint;
  }

  mark(path: string, fingerprint: string): void {
    if (this.stamps[path] === fingerprint) return;
    this.stamps[path] = fingerprint;
    this.changed = true;
  }

  /**
   * Writes the stamps, only if one changed: a compiled data dir stays untouched, so it can be
   * read-only or shared. Stamps written meanwhile by another process are kept (merged under
   * ours). A dir we cannot write to only costs a verification next time, so that is not an error.
   */
  async save(): Promise<void> {
    if (!this.changed) return;
    const merged = { ...(await readStampFile(this.file)), ...this.stamps };
    try {
      await writePrivateFileAtomic(this.file, `${JSON.stringify(merged, null, 2)}\n`);
      this.changed = false;
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code !== 'EACCES' && code !== 'EPERM' && code !== 'EROFS') throw error;
    }
  }
}

async function readStampFile(file: string): Promise<Record<string, string>> {
  try {
    const parsed: unknown = JSON.parse(await readFile(file, 'utf8'));
    if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) return {};
    return Object.fromEntries(
      Object.entries(parsed).filter((entry): entry is [string, string] => typeof entry[1] === 'string'),
    );
  } catch {
    // Missing or unreadable: every file is verified again, which is safe.
    return {};
  }
}
