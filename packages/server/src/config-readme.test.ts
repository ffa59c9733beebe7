import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { environmentVariables } from './config.js';

// The README's configuration table is the operator's reference: it must name every variable.
describe('README configuration table', () => {
  const readme = readFileSync(new URL('../README.md', import.meta.url), 'utf8');
  it.each(environmentVariables())('documents $name ($key)', ({ name, key }) => {
    if (name.startsWith('SVC_PLAN_<ID>_')) {
      // Plan variables share one row: the pattern and each field's name.
      expect(readme).toContain('`SVC_PLAN_<ID>_<FIELD>`');
      expect(readme).toContain(`\`${key.split('.').pop()}\``);
    } else {
      expect(readme).toContain(`\`${name}\``);
    }
  });
});
