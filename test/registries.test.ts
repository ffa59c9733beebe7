import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { JOB_TYPE_IDS } from '@svc/core';
import { PAID_PROVIDERS } from '@svc/enricher';
import { describe, expect, it } from 'vitest';

/**
 * One registry per concept (DESIGN §2): every other list derives from it. These guards fail when
 * a hard-coded copy of a registry appears in a package's source (tests may spell values out).
 */
const root = join(import.meta.dirname, '..');

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory())
      return entry.name === 'node_modules' || entry.name === 'testing' ? [] : sources(path);
    return /\.tsx?$/.test(entry.name) && !/\.test\.tsx?$/.test(entry.name) ? [path] : [];
  });
}

const packageSources = readdirSync(join(root, 'packages')).flatMap((name) => {
  try {
    return sources(join(root, 'packages', name, 'src'));
  } catch {
    return [];
  }
});

/** A line of code, not of a comment (a comment may name values as examples). */
const isCode = (line: string) => !/^\s*(\/\/|\/\*|\*)/.test(line);

/**
 * Places where two or more of `ids` stand within `span` lines of code of each other (quoted,
 * in a message or bare): a list of them written out again.
 */
function copiesOf(ids: readonly string[], allowed: readonly string[], span = 3): string[] {
  const word = new RegExp(`\\b(${ids.join('|')})\\b`, 'g');
  const found: string[] = [];
  for (const path of packageSources) {
    const file = relative(root, path).split('\\').join('/');
    if (allowed.includes(file)) continue;
    const lines = readFileSync(path, 'utf8').split('\n');
    for (let at = 0; at < lines.length; at++) {
      const window = lines
        .slice(at, at + span)
        .filter(isCode)
        .join('\n');
      const named = new Set([...window.matchAll(word)].map((match) => match[1]));
      if (named.size >= 2) {
        found.push(`${file}:${at + 1}: ${[...named].join(', ')}`);
        at += span - 1;
      }
    }
  }
  return found;
}

describe('registries are not copied', () => {
  it('job types: only @svc/core/src/job-types.ts lists them', () => {
    const allowed = [
      'packages/core/src/job-types.ts',
      // The endpoint table: endpoint ids, some of which job types stand for.
      'packages/server/src/endpoints.ts',
    ];
    expect(copiesOf(JOB_TYPE_IDS, allowed)).toEqual([]);
  });

  it("paid providers: only @svc/enricher's PAID_PROVIDERS lists them or names their key variables", () => {
    const registry = 'packages/enricher/src/adapters/paid-providers.ts';
    expect(
      copiesOf(
        PAID_PROVIDERS.map((provider) => provider.id),
        [registry],
      ),
    ).toEqual([]);
    const variables = PAID_PROVIDERS.map((provider) => provider.envVar);
    const named = packageSources
      .map((path) => relative(root, path).split('\\').join('/'))
      .filter((file) => file !== registry)
      .filter((file) =>
        variables.some((variable) => readFileSync(join(root, file), 'utf8').includes(variable)),
      );
    expect(named).toEqual([]);
  });
});

describe('the docs name what the registries hold', () => {
  it("every README that names a paid provider's key variable names all of them", () => {
    const readmes = ['packages/server/README.md', 'packages/cli/README.md', 'packages/enricher/README.md'];
    for (const readme of readmes) {
      const text = readFileSync(join(root, readme), 'utf8');
      for (const provider of PAID_PROVIDERS)
        expect({ readme, named: text.includes(provider.envVar) }).toEqual({ readme, named: true });
    }
  });
});
