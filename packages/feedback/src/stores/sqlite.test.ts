import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { describeFeedbackStore, sampleEvent } from '../testing/describe-feedback-store.js';
import { createSqliteFeedbackStore } from './sqlite.js';

const dir = mkdtempSync(join(tmpdir(), 'feedback-sqlite-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
let files = 0;

describeFeedbackStore('sqlite', () => createSqliteFeedbackStore({ path: join(dir, `f${files++}.db`) }));

describe('sqlite feedback store specifics', () => {
  it('survives a reopen, and the file is private (0600)', async () => {
    const path = join(dir, 'reopen.db');
    const first = await createSqliteFeedbackStore({ path });
    await first.record('acc', [sampleEvent('kept@x.example', 'complaint', '2026-11-01T00:00:00.000Z')]);
    await first.close();
    expect(statSync(path).mode & 0o777).toBe(0o600);
    const second = await createSqliteFeedbackStore({ path });
    expect((await second.summary({ account: 'acc' }, 'kept@x.example'))?.lastComplaintAt).toBe(
      '2026-11-01T00:00:00.000Z',
    );
    await second.close();
  });
});
