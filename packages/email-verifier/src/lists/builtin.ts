import { isStringArray, readDataFile, readDataObject } from './data-files.js';

/**
 * The disposable-domain file: the published lists combined by the agreement rule
 * (src/lists/disposable-agreement.ts; sources, licences and attribution beside it in
 * data/disposable-domains.NOTICE.md).
 */
export const DISPOSABLE_DATA_FILE = 'disposable-domains.json';

/** One published list behind the disposable file, as its header records it. */
export interface DisposableListSource {
  package: string;
  version: string;
  license: string;
  role: 'curated' | 'voter';
  /** Entries of this list that the file holds. */
  kept: number;
}

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
    disposable: { file: string; lists: DisposableListSource[] };
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
  const disposableData = readDataObject(DISPOSABLE_DATA_FILE, isStringArray);
  // Generated, already lowercase and trimmed (src/lists/disposable-data.test.ts checks it).
  const disposable = new Set(disposableData.entries);
  const free = lowercaseSet(readDataFile('free-providers.json', isStringArray));
  const roles = lowercaseSet(readDataFile('role-local-parts.json', isStringArray));
  return {
    disposable,
    free,
    roles,
    sources: {
      disposable: {
        file: `data/${DISPOSABLE_DATA_FILE}`,
        lists: ((disposableData.sources ?? []) as DisposableListSource[]).map(
          ({ package: name, version, license, role, kept }) => ({
            package: name,
            version,
            license,
            role,
            kept,
          }),
        ),
      },
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
