import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

interface PackageJson {
  name: string;
  exports?: Record<string, { source?: string } | string>;
}

/**
 * The public-API check every package runs (its `src/public-api.test.ts`): for each entry of
 * package.json `exports`, the sorted names it exports at run time match the package's snapshot,
 * and its README's "What this package exports" section names each of them in backticks. A name
 * added to or removed from a package's surface thus shows in review as a snapshot change and
 * needs a line in the README. After an intended change: name the export in the README's section,
 * then `npx vitest run --project <package> src/public-api -u` rewrites the snapshot.
 */
export function describePublicApi(packageDir: URL): void {
  const manifest = JSON.parse(readFileSync(new URL('package.json', packageDir), 'utf8')) as PackageJson;
  const readme = readFileSync(new URL('README.md', packageDir), 'utf8');
  const section = exportsSection(readme);
  describe(`${manifest.name}: public API`, () => {
    it('has a "What this package exports" section in its README', () => {
      expect(section, `${manifest.name}'s README needs a "## What this package exports" section`).not.toBe(
        '',
      );
    });
    for (const [subpath, target] of Object.entries(manifest.exports ?? {})) {
      const source = typeof target === 'string' ? target : target.source;
      if (!source?.endsWith('.ts')) continue;
      const specifier = subpath === '.' ? manifest.name : `${manifest.name}${subpath.slice(1)}`;
      it(`${specifier} exports what its snapshot and README say`, async () => {
        const module = (await import(new URL(source, packageDir).href)) as Record<string, unknown>;
        const names = Object.keys(module).sort();
        expect(names).toMatchSnapshot();
        if (subpath !== '.') expect(section, `the README names ${specifier}`).toContain(`\`${specifier}\``);
        const undocumented = names.filter((name) => !section.includes(`\`${name}\``));
        expect(undocumented, `names ${specifier} exports but its README's exports section does not`).toEqual(
          [],
        );
      });
    }
  });
}

function exportsSection(readme: string): string {
  const start = readme.search(/^## What this package exports\s*$/m);
  if (start < 0) return '';
  const rest = readme.slice(start + 1);
  const end = rest.search(/^## /m);
  return end < 0 ? rest : rest.slice(0, end);
}
