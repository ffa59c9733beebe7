import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createSqliteFeedbackStore } from '@svc/feedback';
import { afterAll, describe, expect, it } from 'vitest';
import { EXIT } from '../exit-codes.js';
import { main } from '../main.js';
import { captureIo } from '../testing/capture-io.js';

const dir = mkdtempSync(join(tmpdir(), 'svc-feedback-cli-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const CSV = [
  'email,event,timestamp,reason,bounce_type',
  'ann.lee@corp.example,delivered,2026-11-01T10:00:00Z,,',
  'bo@corp.example,bounce,2026-11-02T10:00:00Z,"550 5.1.1 <bo@corp.example>: Recipient address rejected: User unknown",Permanent',
  'cy@corp.example,open,2026-11-02T10:00:00Z,,',
  'broken-address,delivered,2026-11-02T10:00:00Z,,',
].join('\n');

describe('svc feedback import', () => {
  it('imports a CSV export into the data directory for an account, once, naming bad rows', async () => {
    const file = join(dir, 'events.csv');
    writeFileSync(file, CSV);
    const dataDir = join(dir, 'data');
    const args = [
      'feedback',
      'import',
      file,
      '--account',
      'acct_demo',
      '--provider',
      'sendgrid',
      '--data-dir',
      dataDir,
    ];
    const first = captureIo();
    expect(await main(args, first), first.err()).toBe(EXIT.failure);
    expect(first.out()).toMatch(
      /imported for acct_demo: 2 events stored, 0 already recorded, 1 rows skipped .* 1 bad rows/,
    );
    expect(first.err()).toMatch(/line 5: address is not an email address/);
    // A second import of the same file stores nothing new.
    const again = captureIo();
    expect(await main([...args, '--json'], again)).toBe(EXIT.failure);
    expect(JSON.parse(again.out())).toMatchObject({
      read: 2,
      stored: 0,
      duplicates: 2,
      skipped: 1,
      errors: 1,
    });
    // What the server's verifications will read.
    const store = await createSqliteFeedbackStore({ path: join(dataDir, 'feedback.db') });
    try {
      const bounce = await store.summary({ account: 'acct_demo' }, 'bo@corp.example');
      expect(bounce?.lastHardBounce).toMatchObject({
        provider: 'sendgrid',
        reading: { level: 'mailbox', reason: 'mailbox_not_found' },
      });
      expect(await store.summary({ account: 'acct_other' }, 'bo@corp.example')).toBeNull();
    } finally {
      await store.close();
    }
  });

  it("svc enrich erase removes the address's delivery events too, in every account", async () => {
    const dataDir = join(dir, 'erase-data');
    const file = join(dir, 'erase.csv');
    writeFileSync(file, 'address,event,at\nzoe@acme.com,delivered,2026-11-01T10:00:00Z\n');
    for (const account of ['acct_one', 'acct_two']) {
      expect(
        await main(['feedback', 'import', file, '--account', account, '--data-dir', dataDir], captureIo()),
      ).toBe(EXIT.ok);
    }
    const io = captureIo();
    io.env.SVC_DATA_DIR = dataDir;
    expect(await main(['enrich', 'erase', '--email', 'Zoe@acme.com', '--json'], io), io.err()).toBe(EXIT.ok);
    expect(JSON.parse(io.out())).toMatchObject({ suppressed: true, feedback_events_removed: 2 });
    const store = await createSqliteFeedbackStore({ path: join(dataDir, 'feedback.db') });
    try {
      expect(await store.summary('shared', 'zoe@acme.com')).toBeNull();
    } finally {
      await store.close();
    }
  });

  it('says what is missing: the account, the file, usable columns', async () => {
    const io = captureIo();
    expect(await main(['feedback', 'import', join(dir, 'events.csv')], io)).toBe(EXIT.usage);
    expect(io.err()).toMatch(/--account/);
    const missing = captureIo();
    expect(await main(['feedback', 'import', join(dir, 'nope.csv'), '--account', 'acct_demo'], missing)).toBe(
      EXIT.usage,
    );
    expect(missing.err()).toMatch(/no such file/);
    const bad = join(dir, 'bad.csv');
    writeFileSync(bad, 'foo,bar\n1,2\n');
    const header = captureIo();
    expect(
      await main(
        ['feedback', 'import', bad, '--account', 'acct_demo', '--data-dir', join(dir, 'data')],
        header,
      ),
    ).toBe(EXIT.usage);
    expect(header.err()).toMatch(/needs an address column/);
  });
});
