import { accessSync, constants, statSync } from 'node:fs';
import { delimiter, join } from 'node:path';

/**
 * The environment variable that turns "an external tool or service is missing, skip the tests
 * that need it" into a failure. CI sets it (`.ci/run`), so a missing install step cannot hide
 * behind skipped tests; a developer without the tool still gets a green, honest run.
 */
export const REQUIRE_EXTERNAL = 'SVC_REQUIRE_EXTERNAL';

/** Something outside Node that some tests need: a binary (mmdblookup), a server (Redis, PostgreSQL), a browser. */
export interface ExternalNeed {
  /** What is needed, as the user would look for it, e.g. `mmdblookup`. */
  name: string;
  /** Whether it is there (e.g. `commandOnPath('mmdblookup')`, or a successful connect). */
  available: boolean;
  /** How to get it, e.g. `apt-get install mmdb-bin`. */
  howToGet: string;
  /** What the skipped tests check, for the message. @default `tests that need ${name}` */
  what?: string;
  /** The environment read for {@link REQUIRE_EXTERNAL}. @default process.env */
  env?: NodeJS.ProcessEnv;
  /** Where the skip message goes. @default console.warn */
  warn?: (message: string) => void;
}

/**
 * Whether the tests that need `need` must be skipped: `false` when it is available; `true`,
 * after printing why and how to get it, when it is missing. When {@link REQUIRE_EXTERNAL} is
 * set (to anything but "" or "0") a missing need throws instead, failing the test file. Use the
 * result with `it.skipIf(...)` / `describe.skipIf(...)`.
 */
export function skipWithout(need: ExternalNeed): boolean {
  if (need.available) return false;
  const env = need.env ?? process.env;
  const what = need.what ?? `tests that need ${need.name}`;
  const required = env[REQUIRE_EXTERNAL] !== undefined && !['', '0'].includes(env[REQUIRE_EXTERNAL] ?? '');
  if (required) {
    throw new Error(
      `${need.name} is missing but ${REQUIRE_EXTERNAL}=${env[REQUIRE_EXTERNAL]} requires it (for ${what}); get it with: ${need.howToGet}`,
    );
  }
  (need.warn ?? console.warn)(
    `SKIPPED: ${what}: ${need.name} is missing (get it with: ${need.howToGet}; set ${REQUIRE_EXTERNAL}=1 to fail instead of skipping)`,
  );
  return true;
}

/** Whether an executable file named `command` is in one of the folders of `path` (like `command -v`, without a shell). */
export function commandOnPath(command: string, path: string | undefined = process.env.PATH): boolean {
  for (const folder of (path ?? '').split(delimiter)) {
    if (folder === '') continue;
    const file = join(folder, command);
    try {
      accessSync(file, constants.X_OK);
      if (statSync(file).isFile()) return true;
    } catch {
      // not here: try the next folder
    }
  }
  return false;
}
