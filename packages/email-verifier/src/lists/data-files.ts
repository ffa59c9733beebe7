import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';

// The package's own data lives in <package>/data, next to src/ and dist/: both src/lists and
// dist/lists are two levels below the package root, so one relative URL serves tests and builds.
const DATA_DIR = new URL('../../data/', import.meta.url);

/** Reads `data/<name>` of this package: a JSON object whose `entries` holds the list. */
export function readDataFile<T>(name: string, check: (entries: unknown) => entries is T): T {
  return readDataObject(name, check).entries;
}

/** Reads `data/<name>` whole (its other fields too), checking its `entries`. */
export function readDataObject<T>(
  name: string,
  check: (entries: unknown) => entries is T,
): Record<string, unknown> & { entries: T } {
  const url = new URL(name, DATA_DIR);
  const parsed = JSON.parse(readFileSync(url, 'utf8')) as Record<string, unknown> | null;
  if (!check(parsed?.entries))
    throw new Error(`The data file ${url.pathname} does not hold the expected "entries"`);
  return parsed as Record<string, unknown> & { entries: T };
}

/** True for an array of strings. */
export function isStringArray(value: unknown): value is string[] {
  return Array.isArray(value) && value.every((entry) => typeof entry === 'string');
}

/** True for an object whose values are all strings. */
export function isStringRecord(value: unknown): value is Record<string, string> {
  return (
    typeof value === 'object' &&
    value !== null &&
    !Array.isArray(value) &&
    Object.values(value).every((entry) => typeof entry === 'string')
  );
}

const require = createRequire(import.meta.url);

/** Reads a JSON file shipped inside an npm dependency, and that dependency's version. */
export function readPackageJson(specifier: string): { data: unknown; version: string; path: string } {
  const path = require.resolve(specifier);
  const packageName = specifier.startsWith('@')
    ? specifier.split('/', 2).join('/')
    : (specifier.split('/')[0] as string);
  const manifest = JSON.parse(readFileSync(require.resolve(`${packageName}/package.json`), 'utf8')) as {
    version?: unknown;
  };
  return {
    data: JSON.parse(readFileSync(path, 'utf8')),
    version: typeof manifest.version === 'string' ? manifest.version : 'unknown',
    path,
  };
}
