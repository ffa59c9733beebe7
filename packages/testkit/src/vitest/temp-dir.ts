import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach } from 'vitest';

/**
 * A fresh directory under the system's temporary folder for each test of the file or `describe`
 * that calls this: made before the test, removed with its contents after it (after the test's
 * own `afterEach` hooks that were registered later, such as closing servers that write there).
 * Returns a function naming the current test's directory.
 */
export function tempDirPerTest(prefix: string): () => string {
  return tempDir(
    prefix,
    beforeEach,
    afterEach,
    'tempDirPerTest: the directory exists only while a test runs',
  );
}

/**
 * One directory under the system's temporary folder shared by all the tests of the file or
 * `describe` that calls this: made before the first, removed with its contents after the last.
 * Returns a function naming it.
 */
export function sharedTempDir(prefix: string): () => string {
  return tempDir(prefix, beforeAll, afterAll, 'sharedTempDir: the directory exists only while its tests run');
}

function tempDir(
  prefix: string,
  before: typeof beforeAll,
  after: typeof afterAll,
  outside: string,
): () => string {
  let dir: string | undefined;
  before(async () => {
    dir = await mkdtemp(join(tmpdir(), prefix));
  });
  after(async () => {
    if (dir) await rm(dir, { recursive: true, force: true });
    dir = undefined;
  });
  return () => {
    if (!dir) throw new Error(outside);
    return dir;
  };
}
