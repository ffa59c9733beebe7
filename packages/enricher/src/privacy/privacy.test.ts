import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { describeSuppression } from '../testing/describe-suppression.js';
import { hashIdentifier } from './hash.js';
import { candidateIdentifiers } from './subjects.js';
import { createMemorySuppression, createSqliteSuppression } from './suppression.js';

const dir = mkdtempSync(join(tmpdir(), 'enrich-privacy-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
let files = 0;

describeSuppression('memory', () => createMemorySuppression());
describeSuppression('sqlite', () => createSqliteSuppression({ path: join(dir, `s${files++}.db`) }));

describe('suppression', () => {
  it('stores SHA-256 hashes only and refuses anything else', async () => {
    const hash = hashIdentifier('email:jane@acme.com');
    expect(hash).toBe(createHash('sha256').update('email:jane@acme.com').digest('hex'));
    expect(hash).toMatch(/^[0-9a-f]{64}$/);
    const list = createMemorySuppression();
    await expect(list.add('jane@acme.com', 0)).rejects.toThrow('SHA-256');
    await list.add(hash, 1);
    expect(await list.has(hash)).toBe(true);
    expect(await list.has(hashIdentifier('email:john@acme.com'))).toBe(false);
  });

  it('SQLite: an erase stays in force after a restart, in a private file', async () => {
    const path = join(dir, 'suppression.db');
    const hash = hashIdentifier('email:jane@acme.com');
    const first = await createSqliteSuppression({ path });
    await first.add(hash, 1);
    await first.close();
    const second = await createSqliteSuppression({ path });
    expect(await second.has(hash)).toBe(true);
    expect(await second.remove(hash)).toBe(true);
    expect(await second.has(hash)).toBe(false);
    await second.close();
    expect(statSync(path).mode & 0o777).toBe(0o600);
  });

  it('a person candidate carries its normalised strong keys; malformed ones are skipped', () => {
    expect(
      candidateIdentifiers('person', {
        fields: {
          email: 'Jane@Acme.com',
          profile_url: 'linkedin.com/in/Jane',
          full_name: 'Jane  Doe',
          company_domain: 'www.acme.com',
        },
        confidence: 1,
      }),
    ).toEqual([
      'email:jane@acme.com',
      'profile_url:https://www.linkedin.com/in/jane',
      'name:acme.com:jane doe',
    ]);
    expect(candidateIdentifiers('person', { fields: { email: 'broken' }, confidence: 1 })).toEqual([]);
  });
});
