import { readFileSync } from 'node:fs';
import { ServiceError } from '@svc/core';
import { UnprocessableAddressError } from '@svc/email-verifier';
import { describe, expect, it } from 'vitest';
import { createSandboxVerifier, SANDBOX_MAGIC, sandboxMagicOf } from './sandbox.js';

const clock = () => new Date('2026-11-23T12:00:00.000Z');

/** docs/api.md's table of magic local parts (its Sandbox section): `name → { status, state, deliverable, score, reasons }`. */
function documentedTable() {
  const readme = readFileSync(new URL('../../../docs/api.md', import.meta.url), 'utf8');
  const section = readme.slice(readme.indexOf('### Sandbox (test keys)'));
  const rows = new Map<
    string,
    { status: string; state: string; deliverable: boolean; score: number; reasons: string[] }
  >();
  for (const line of section.split('\n')) {
    const match = /^\| `([a-z_]+)@…` \| ([^|]+) \| ([^|]+) \| (true|false) \| ([\d.]+) \| ([^|]+) \|/.exec(
      line,
    );
    if (!match) continue;
    const [, name, status, state, deliverable, score, reasons] = match as unknown as string[];
    rows.set(name as string, {
      status: (status as string).trim(),
      state: (state as string).trim().replace(/^\(bulk: (\w+)\)$/, '$1'),
      deliverable: deliverable === 'true',
      score: Number(score),
      reasons: (reasons as string).trim() === '—' ? [] : [(reasons as string).trim().replaceAll('`', '')],
    });
  }
  return rows;
}

describe('the sandbox verifier', () => {
  it('answers every magic local part as docs/api.md documents', async () => {
    const documented = documentedTable();
    expect([...documented.keys()].sort()).toEqual(Object.keys(SANDBOX_MAGIC).sort());
    const sandbox = createSandboxVerifier({ clock });
    const names = [...documented.keys()];
    const results = await sandbox.verifyMany(names.map((name) => `${name}@example.com`));
    results.forEach((result, i) => {
      const row = documented.get(names[i] as string);
      expect(
        {
          state: result.state,
          deliverable: result.deliverable,
          score: result.quality_score,
          reasons: result.reasons,
        },
        names[i],
      ).toEqual({
        state: row?.state,
        deliverable: row?.deliverable,
        score: row?.score,
        reasons: row?.reasons,
      });
    });
    for (const [name, row] of documented) {
      const single = sandbox.verify(`${name}@example.com`);
      if (row.status === '200') await expect(single).resolves.toMatchObject({ state: row.state });
      else await expect(single).rejects.toMatchObject({ code: row.status.split('`')[1] });
    }
  });

  it("stamps results with the call's requestId, and otherwise with an id of their own", async () => {
    const sandbox = createSandboxVerifier({ clock });
    expect((await sandbox.verify('a@example.com', {}, { requestId: 'req_one' })).request_id).toBe('req_one');
    const bulk = await sandbox.verifyMany(['a@example.com', 'b@example.com'], {}, { requestId: 'req_bulk' });
    expect(bulk.map((result) => result.request_id)).toEqual(['req_bulk', 'req_bulk']);
    const own = await sandbox.verifyMany(['a@example.com', 'b@example.com']);
    expect(own[0]?.request_id).toMatch(/^req_/);
    expect(own[0]?.request_id).not.toBe(own[1]?.request_id);
  });

  it('matches magic local parts without case or +tag, and only whole names', () => {
    expect(sandboxMagicOf('Deliverable+42')).toBe('deliverable');
    expect(sandboxMagicOf('CATCH_ALL')).toBe('catch_all');
    expect(sandboxMagicOf('deliverables')).toBeNull();
    expect(sandboxMagicOf('toString')).toBeNull();
    expect(sandboxMagicOf('alice')).toBeNull();
  });

  it('answers a magic address the same at any domain, whatever the lists say of it', async () => {
    const sandbox = createSandboxVerifier({ clock });
    const [plain, disposable, typo] = await sandbox.verifyMany(
      ['deliverable@example.com', 'deliverable@mailinator.com', 'deliverable@gmial.com'],
      { probe_mailbox: false },
    );
    for (const result of [disposable, typo]) {
      expect(result).toMatchObject({
        state: plain?.state,
        quality_score: 1,
        reasons: [],
        suggestion: null,
        is_disposable: false,
      });
    }
    expect(plain?.checked_at).toBe('2026-11-23T12:00:00.000Z');
  });

  it('refuses a bulk call it cannot take with the live verifier messages', async () => {
    const sandbox = createSandboxVerifier({ clock });
    await expect(sandbox.verifyMany('a@example.com' as never)).rejects.toMatchObject({
      code: 'invalid_request',
      message: '"emails" must be an array of strings',
    });
    await expect(
      sandbox.verifyMany(Array.from({ length: 10_001 }, () => 'a@example.com')),
    ).rejects.toMatchObject({
      code: 'invalid_request',
      message: 'at most 10000 addresses per call, got 10001',
    });
  });

  it('runs the offline stages on other addresses and refuses what is not an address', async () => {
    const sandbox = createSandboxVerifier({ clock });
    await expect(sandbox.verify('bob@mailinator.com')).resolves.toMatchObject({
      state: 'risky',
      reasons: ['domain_not_checked', 'disposable'],
      is_disposable: true,
      mx: { accepts_mail: false, records: [] },
    });
    await expect(sandbox.verify('bob@mailinator.com', { check_disposable: false })).resolves.toMatchObject({
      state: 'unknown',
      reasons: ['domain_not_checked'],
    });
    const refusal = await sandbox.verify('bob@@example.com').catch((error: unknown) => error);
    expect(refusal).toBeInstanceOf(UnprocessableAddressError);
    expect((refusal as UnprocessableAddressError).result.reasons).toEqual(['invalid_syntax']);
    const [invalid] = await sandbox.verifyMany(['bob@@example.com']);
    expect(invalid).toMatchObject({ state: 'undeliverable', reasons: ['invalid_syntax'], normalized: null });
    await expect(sandbox.verifyMany(Array(10_001).fill('a@example.com'))).rejects.toSatisfy(
      (error: unknown) => ServiceError.is(error) && error.code === 'invalid_request',
    );
  });
});
