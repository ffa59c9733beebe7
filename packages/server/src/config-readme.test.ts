import { readFileSync, writeFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { environmentVariables, SETTINGS } from './config.js';
import { withSettingsTable } from './config-table.js';
import { resolveServerOptions } from './options.js';

const README_URL = new URL('../README.md', import.meta.url);

// The README's settings table is the operator's reference: it is made from the settings schema.
describe('README settings table', () => {
  it('is the one config-schema.ts makes (regenerate: pnpm settings-table)', () => {
    const readme = readFileSync(README_URL, 'utf8');
    const current = withSettingsTable(readme);
    if (process.env.SVC_UPDATE_GENERATED === '1') {
      if (current !== readme) writeFileSync(README_URL, current);
      return;
    }
    expect(
      readme,
      'stale: run `pnpm settings-table` (SVC_UPDATE_GENERATED=1 npx vitest run --project server config-readme)',
    ).toBe(current);
  });

  it.each(environmentVariables())('documents $name ($key)', ({ name, key }) => {
    const readme = readFileSync(README_URL, 'utf8');
    if (name.startsWith('SVC_PLAN_<ID>_')) {
      // Plan variables share one row: the pattern and each field's name.
      expect(readme).toContain('`SVC_PLAN_<ID>_<FIELD>`');
      expect(readme).toContain(`\`${key.split('.').pop()}\``);
    } else {
      expect(readme).toContain(`\`${name}\``);
    }
  });
});

describe('the settings schema', () => {
  it.each(SETTINGS.map((setting) => [setting.path.join('.'), setting] as const))(
    '%s has a description and a default, the one resolveServerOptions applies',
    (_key, setting) => {
      expect(setting.schema.description).toBeTruthy();
      expect(setting.schema.default !== undefined || setting.schema['x-default'] !== undefined).toBe(true);
      if (setting.schema.default === undefined) return;
      let resolved: unknown = resolveServerOptions({});
      for (const part of setting.path) resolved = (resolved as Record<string, unknown> | null)?.[part];
      // Unset optional leaves resolve to null (tls: no HTTPS), the schema's default to its value.
      expect(resolved).toEqual(setting.schema.default);
    },
  );
});
