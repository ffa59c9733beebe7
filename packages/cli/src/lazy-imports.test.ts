import { readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const registry = fileURLToPath(new URL('./registry.ts', import.meta.url));

/**
 * The modules a file loads when it is imported: its static value imports, followed through this
 * package's own files (`import type` and `await import()` load nothing up front).
 */
function staticImports(file: string, seen = new Map<string, string>()): Map<string, string> {
  const text = readFileSync(file, 'utf8');
  // `import … from '…'` and `export … from '…'` at the start of a line, not `import type`.
  const pattern = /^(?:import|export)\s+(?!type\s)(?:[^;]*?\sfrom\s+)?['"]([^'"]+)['"]/gms;
  for (const match of text.matchAll(pattern)) {
    const specifier = match[1] as string;
    if (!specifier.startsWith('.')) {
      if (!seen.has(specifier)) seen.set(specifier, file);
      continue;
    }
    const target = resolve(dirname(file), specifier.replace(/\.js$/, '.ts'));
    if (seen.has(target)) continue;
    seen.set(target, file);
    staticImports(target, seen);
  }
  return seen;
}

describe('the command table', () => {
  it('loads neither @svc/server nor Fastify: only svc serve, accounts and keys load them, on demand', () => {
    const loaded = staticImports(registry);
    // Sanity: the walk does follow the table into the commands and their packages.
    expect(loaded.has('@svc/geo-resolver') || loaded.has('@svc/core')).toBe(true);
    const heavy = [...loaded].filter(([name]) => /^(@svc\/server|fastify|@fastify\/)/.test(name));
    expect(heavy.map(([name, from]) => `${name} (imported by ${from})`)).toEqual([]);
  });
});
