import { readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import * as self from './index.js';

/**
 * Runs the README's example as written: its import lines are checked and replaced by the
 * real modules (this package's source for '@svc/mmdb-writer'), the rest runs unchanged.
 */
it('the README example runs and prints what the README says', async () => {
  const readme = readFileSync(new URL('../README.md', import.meta.url), 'utf8');
  const code = /## Example\s+(?:<!--[^>]*-->\s+)?```js\n([\s\S]*?)```/.exec(readme)?.[1];
  expect(code).toBeDefined();
  const modules: Record<string, Record<string, unknown>> = {
    'node:fs': await import('node:fs'),
    'node:os': await import('node:os'),
    'node:path': await import('node:path'),
    maxmind: await import('maxmind'),
    '@svc/mmdb-writer': self,
  };
  const names: string[] = [];
  const values: unknown[] = [];
  const body = code!.replace(
    /^import \{ ([^}]+) \} from '([^']+)';\n/gm,
    (_line, list: string, from: string) => {
      const module = modules[from];
      expect(module, from).toBeDefined();
      for (const name of list.split(',').map((n) => n.trim())) {
        expect(module![name], `${name} from ${from}`).toBeDefined();
        names.push(name);
        values.push(module![name]);
      }
      return '';
    },
  );
  expect(body).not.toMatch(/^import /m);
  const printed: unknown[] = [];
  const AsyncFunction = Object.getPrototypeOf(async () => {}).constructor as new (
    ...args: string[]
  ) => (...args: unknown[]) => Promise<void>;
  await new AsyncFunction(...names, 'console', body)(...values, { log: (v: unknown) => printed.push(v) });
  rmSync(join(tmpdir(), 'example.mmdb'), { force: true });
  expect(printed).toEqual([
    {
      city: { names: { en: 'Example City' } },
      location: { latitude: 52, longitude: 13.4, accuracy_radius: 50 },
      is_hosting: true,
    },
    { city: { names: { en: 'Other City' } } },
    null,
    'Example-City',
  ]);
});
