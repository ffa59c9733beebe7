import { isStringArray, readDataFile, readPackageJson } from './data-files.js';

/** The npm package the disposable-domain list comes from (CC0-1.0, see the README). */
export const DISPOSABLE_LIST_PACKAGE = 'disposable-email-domains-js';
const DISPOSABLE_LIST_FILE = `${DISPOSABLE_LIST_PACKAGE}/dist/dict/disposable_email_blocklist.json`;

/** The lists that ship with the package, each loaded once into a Set. */
export interface BuiltinLists {
  /** Disposable (throwaway) mail domains, lowercase A-labels. */
  disposable: ReadonlySet<string>;
  /** Free mailbox providers (webmail, ISP mailboxes). */
  free: ReadonlySet<string>;
  /** Local parts that name a role rather than a person, lowercase. */
  roles: ReadonlySet<string>;
  /** Where each list came from, for logs and the CLI's `--version`-style output. */
  sources: {
    disposable: { package: string; version: string };
    free: { file: string };
    roles: { file: string };
  };
  /** Milliseconds the load took (read + parse + Set construction). */
  loadMs: number;
}

let loaded: BuiltinLists | undefined;

/** The built-in lists, read from disk on the first call and shared afterwards. */
export function loadBuiltinLists(): BuiltinLists {
  loaded ??= readBuiltinLists();
  return loaded;
}

/** Reads the built-in lists afresh (no sharing); loadBuiltinLists is what callers want. */
export function readBuiltinLists(): BuiltinLists {
  const started = performance.now();
  const disposableSource = readPackageJson(DISPOSABLE_LIST_FILE);
  if (!isStringArray(disposableSource.data)) {
    throw new Error(
      `${DISPOSABLE_LIST_FILE} is not an array of domains; the package layout may have changed (version ${disposableSource.version})`,
    );
  }
  const disposable = lowercaseSet(disposableSource.data);
  const free = lowercaseSet(readDataFile('free-providers.json', isStringArray));
  const roles = lowercaseSet(readDataFile('role-local-parts.json', isStringArray));
  return {
    disposable,
    free,
    roles,
    sources: {
      disposable: { package: DISPOSABLE_LIST_PACKAGE, version: disposableSource.version },
      free: { file: 'data/free-providers.json' },
      roles: { file: 'data/role-local-parts.json' },
    },
    loadMs: performance.now() - started,
  };
}

function lowercaseSet(entries: readonly string[]): Set<string> {
  const set = new Set<string>();
  for (const entry of entries) {
    const trimmed = entry.trim();
    if (trimmed !== '') set.add(trimmed.toLowerCase());
  }
  return set;
}
