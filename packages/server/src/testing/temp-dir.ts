import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach } from 'vitest';

/**
 * A fresh directory under the system's temporary folder for each test of the file or `describe`
 * that calls this: made before the test, removed with its contents after it (after the test's
 * own `afterEach` hooks that were registered later, such as closing servers that write there).
 * Returns a function naming the current test's directory.
 */
export function tempDirPerTest(prefix: string): () => string {
  let dir: string | undefined;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), prefix));
  });
  afterEach(async () => {
    if (dir) await rm(dir, { recursive: true, force: true });
    dir = undefined;
  });
  return () => {
    if (!dir) throw new Error('tempDirPerTest: the directory exists only while a test runs');
    return dir;
  };
}
