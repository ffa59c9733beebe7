import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { commandOnPath, REQUIRE_EXTERNAL, skipWithout } from './skip-without.js';

const dir = mkdtempSync(join(tmpdir(), 'testkit-external-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('skipWithout', () => {
  const need = {
    name: 'mmdblookup',
    howToGet: 'apt-get install mmdb-bin',
    what: 'the libmaxminddb cross-checks',
  };

  it('runs the tests when the need is available, silently', () => {
    const said: string[] = [];
    expect(skipWithout({ ...need, available: true, env: {}, warn: (m) => said.push(m) })).toBe(false);
    expect(said).toEqual([]);
  });

  it('skips with a message saying what, why and how to get it when the need is missing', () => {
    const said: string[] = [];
    for (const env of [{}, { [REQUIRE_EXTERNAL]: '' }, { [REQUIRE_EXTERNAL]: '0' }]) {
      expect(skipWithout({ ...need, available: false, env, warn: (m) => said.push(m) })).toBe(true);
    }
    expect(said).toHaveLength(3);
    expect(said[0]).toBe(
      'SKIPPED: the libmaxminddb cross-checks: mmdblookup is missing (get it with: apt-get install mmdb-bin; set SVC_REQUIRE_EXTERNAL=1 to fail instead of skipping)',
    );
  });

  it(`fails instead when ${REQUIRE_EXTERNAL} is set`, () => {
    const said: string[] = [];
    expect(() =>
      skipWithout({ ...need, available: false, env: { [REQUIRE_EXTERNAL]: '1' }, warn: (m) => said.push(m) }),
    ).toThrow(
      'mmdblookup is missing but SVC_REQUIRE_EXTERNAL=1 requires it (for the libmaxminddb cross-checks); get it with: apt-get install mmdb-bin',
    );
    expect(said).toEqual([]);
  });
});

describe('commandOnPath', () => {
  const bin = join(dir, 'bin');
  const empty = join(dir, 'empty');
  mkdirSync(bin);
  mkdirSync(empty);
  mkdirSync(join(bin, 'a-folder'));
  writeFileSync(join(bin, 'tool'), '#!/bin/sh\n');
  chmodSync(join(bin, 'tool'), 0o755);
  writeFileSync(join(bin, 'not-executable'), '');

  it('finds an executable file in any folder of the PATH', () => {
    expect(commandOnPath('tool', [empty, bin].join(delimiter))).toBe(true);
  });

  it('is false without it: not on the PATH, not executable, a folder or an empty PATH', () => {
    expect(commandOnPath('tool', empty)).toBe(false);
    expect(commandOnPath('not-executable', bin)).toBe(false);
    expect(commandOnPath('a-folder', bin)).toBe(false);
    expect(commandOnPath('tool', '')).toBe(false);
  });
});
