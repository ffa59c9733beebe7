import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect, it } from 'vitest';

// Every package with an export map checks its public API (test/support/public-api.ts), so a new
// package starts with its surface written down.
const root = fileURLToPath(new URL('..', import.meta.url));
const libraries = readdirSync(join(root, 'packages')).filter((name) => {
  const manifest = join(root, 'packages', name, 'package.json');
  return existsSync(manifest) && 'exports' in (JSON.parse(readFileSync(manifest, 'utf8')) as object);
});

it.each(libraries)('packages/%s runs the public-api test', (name) => {
  expect(existsSync(join(root, 'packages', name, 'src', 'public-api.test.ts'))).toBe(true);
});
