import { describe, expect, it } from 'vitest';
import { importOptionalPeer } from './optional-peer.js';

describe('importOptionalPeer', () => {
  it('returns what the import gives', async () => {
    await expect(importOptionalPeer(async () => ({ ok: 1 }), peer)).resolves.toEqual({ ok: 1 });
  });

  it("says who needs what, how to install it and from where, with the cause's first line", async () => {
    const failure = importOptionalPeer(() => import('a-package-that-is-not-installed' as string), peer);
    const error = await failure.catch((caught: Error) => caught);
    expect(error).toBeInstanceOf(Error);
    expect((error as Error).message).toMatch(
      /^the SQLite store needs better-sqlite3 \(npm install better-sqlite3@12\) where @svc\/x resolves it, or passed as the `driver` option \([^\n]*a-package-that-is-not-installed[^\n]*\)$/,
    );
    expect((error as Error).cause).toBeInstanceOf(Error);
  });

  it('leaves out the alternative when there is none', async () => {
    const { otherwise: _, ...noAlternative } = peer;
    const error = await importOptionalPeer(
      () => Promise.reject(new Error('gone\nstack')),
      noAlternative,
    ).catch((caught: Error) => caught);
    expect((error as Error).message).toBe(
      'the SQLite store needs better-sqlite3 (npm install better-sqlite3@12) where @svc/x resolves it (gone)',
    );
  });
});

const peer = {
  user: 'the SQLite store',
  needs: 'better-sqlite3',
  install: 'better-sqlite3@12',
  from: '@svc/x',
  otherwise: 'passed as the `driver` option',
};
