import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { buildDisposableData, DISPOSABLE_DATA_URL } from '../testing/disposable-sources.js';
import { combineDisposableLists } from './disposable-agreement.js';

describe('data/disposable-domains.json', () => {
  it('is what the agreement rule makes of the installed lists (regenerate: SVC_UPDATE_GENERATED=1)', () => {
    const { combined, json } = buildDisposableData();
    if (process.env.SVC_UPDATE_GENERATED === '1') writeFileSync(DISPOSABLE_DATA_URL, json);
    console.log(
      `disposable data: ${combined.entries.length} domains; ${combined.counts
        .map((count) => `${count.package} ${count.kept}/${count.read} kept (${count.invalid} invalid)`)
        .join(', ')}; vetoed ${combined.vetoed.join(', ') || 'none'}`,
    );
    expect(existsSync(DISPOSABLE_DATA_URL), 'run with SVC_UPDATE_GENERATED=1 to create it').toBe(true);
    // A dependency update without regenerating fails here, naming the way out.
    expect(
      readFileSync(DISPOSABLE_DATA_URL, 'utf8') === json,
      'stale: SVC_UPDATE_GENERATED=1 npx vitest run --project email-verifier disposable-data',
    ).toBe(true);
  });
});

describe('combineDisposableLists: the agreement rule', () => {
  const list = (role: 'curated' | 'voter', domains: string[], name = `${role}-${domains.length}`) => ({
    package: name,
    version: '1.0.0',
    license: 'MIT',
    role,
    domains,
  });

  it('keeps the curated list whole and a voter entry only when two voters agree', () => {
    const combined = combineDisposableLists(
      [
        list('curated', ['curated-only.test', 'shared.test']),
        list('voter', ['one-voter.test', 'two-voters.test', 'three.test'], 'a'),
        list('voter', ['two-voters.test', 'three.test'], 'b'),
        list('voter', ['three.test', 'shared.test'], 'c'),
      ],
      new Set(),
    );
    expect(combined.entries).toEqual(['curated-only.test', 'shared.test', 'three.test', 'two-voters.test']);
    expect(combined.counts.map((count) => count.kept)).toEqual([2, 2, 2, 2]);
  });

  it('never lists a vetoed domain, and drops entries that are not domain names', () => {
    const combined = combineDisposableLists(
      [
        list('curated', ['relay.test', ' Upper.TEST ', 'not a domain', 'single']),
        list('voter', ['x.test']),
        list('voter', ['x.test']),
      ],
      new Set(['relay.test', 'x.test']),
    );
    expect(combined.entries).toEqual(['upper.test']);
    expect(combined.vetoed).toEqual(['relay.test', 'x.test']);
    expect(combined.counts[0]).toMatchObject({ read: 4, invalid: 2, kept: 1 });
  });

  it('counts one list once, however often it repeats an entry', () => {
    const combined = combineDisposableLists(
      [list('voter', ['dup.test', 'DUP.test', 'dup.test']), list('voter', [])],
      new Set(),
    );
    expect(combined.entries).toEqual([]);
  });
});
