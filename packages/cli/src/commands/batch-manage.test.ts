import { chmod, mkdir, mkdtemp, readFile, rm, stat, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createBatchRunner, createGeoIpProcessor, createSqliteStore } from '@svc/batch-runner';
import { startWebhookReceiver } from '@svc/testkit';
import { verifyPayload } from '@svc/webhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EXIT } from '../exit-codes.js';
import { main } from '../main.js';
import { expectApiJson, ISO_8601 } from '../testing/api-json.js';
import { asAnotherUser } from '../testing/as-another-user.js';
import { captureIo } from '../testing/capture-io.js';

describe('svc batch list, cancel, deliver, and its file errors', () => {
  let dir: string;
  const io = () => {
    const captured = captureIo();
    captured.env.SVC_DATA_DIR = join(dir, 'data');
    return captured;
  };
  /** A queued job nobody runs (submitted through the store API, as another process would). */
  const queuedJob = async (db: string, webhookUrl?: string) => {
    const store = await createSqliteStore({ path: db });
    const runner = createBatchRunner({
      store,
      processors: [
        createGeoIpProcessor({ lookup: () => ({ country: null, latitude: null, longitude: null }) }),
      ],
    });
    const job = await runner.submit({
      type: 'geo_ip',
      records: ['8.8.8.8', '1.1.1.1'],
      webhook_url: webhookUrl,
    });
    await runner.close({ timeoutMs: 0 });
    await store.close();
    return job.id;
  };
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'svc-batch-manage-'));
    await writeFile(join(dir, 'ips.txt'), '8.8.8.8\n1.1.1.1\n');
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('lists jobs newest first, as a table or the API page', async () => {
    const db = join(dir, 'list.db');
    const first = await queuedJob(db);
    const second = await queuedJob(db);
    const text = io();
    expect(await main(['batch', 'list', '--db', db], text)).toBe(EXIT.ok);
    const lines = text.out().trim().split('\n');
    expect(lines[0]).toMatch(/^id\s+type\s+status\s+processed\s+failed\s+created_at$/);
    expect(lines.slice(2).map((line) => line.split(/\s+/)[0])).toEqual([second, first]);
    expect(lines[2]).toMatch(/geo_ip\s+queued\s+0\/2\s+0\s+\d{4}-/);
    const json = io();
    expect(await main(['batch', 'list', '--db', db, '--json', '--limit', '1'], json)).toBe(EXIT.ok);
    const page = JSON.parse(json.out());
    expect(page).toMatchObject({ data: [{ id: second, object: 'batch_job' }], has_more: true });
    expectApiJson(page);
    const next = io();
    expect(await main(['batch', 'list', '--db', db, '--json', '--cursor', page.next_cursor], next)).toBe(
      EXIT.ok,
    );
    expect(JSON.parse(next.out()).data.map((job: { id: string }) => job.id)).toEqual([first]);
  });

  it('cancels a queued job, and refuses to cancel a finished one', async () => {
    const db = join(dir, 'cancel.db');
    const id = await queuedJob(db, 'https://hooks.example.com/x');
    const cancel = io();
    expect(await main(['batch', 'cancel', id, '--db', db], cancel)).toBe(EXIT.ok);
    expect(cancel.out()).toBe(`${id} cancelled: 0/2 processed\n`);
    expect(cancel.err()).toContain(`send it with \`svc batch deliver --db ${db}\``);
    const status = io();
    expect(await main(['batch', 'status', id, '--db', db, '--json'], status)).toBe(EXIT.ok);
    expect(JSON.parse(status.out())).toMatchObject({
      status: 'cancelled',
      deliveries: [{ type: 'batch.cancelled', state: 'pending', attempts: [] }],
    });
    const again = io();
    expect(await main(['batch', 'cancel', id, '--db', db, '--json'], again)).toBe(EXIT.failure);
    expect(JSON.parse(again.err())).toEqual({
      error: { code: 'invalid_request', message: `${id} is already cancelled; nothing to cancel` },
    });
    const unknown = io();
    expect(await main(['batch', 'cancel', 'batch_nope', '--db', db], unknown)).toBe(EXIT.failure);
    // The answer names the database it searched.
    expect(unknown.err()).toContain(`no batch job "batch_nope" in ${db}`);
  });

  it('delivers due webhook events without running a job', async () => {
    const db = join(dir, 'deliver.db');
    const id = await queuedJob(db);
    const receiver = await startWebhookReceiver({ failFirst: 1, failStatus: 503 });
    try {
      const cancelled = await queuedJob(db, `${receiver.url}/hook`);
      expect(await main(['batch', 'cancel', cancelled, '--db', db], io())).toBe(EXIT.ok);
      const argv = ['batch', 'deliver', '--db', db, '--webhook-secret', 'whsec_d', '--allow-private-webhook'];
      const first = io();
      expect(await main(argv, first)).toBe(EXIT.failure); // the receiver answered 503
      expect(first.out()).toMatch(
        new RegExp(
          `^${cancelled} webhook: evt_\\w+ not delivered yet \\(HTTP 503, 1 attempt\\); next attempt `,
        ),
      );
      expect(first.err()).toBe('webhook: 1 attempt, 0 delivered; 0 events not due yet\n');
      const early = io();
      expect(await main([...argv, '--json'], early)).toBe(EXIT.ok);
      const waiting = JSON.parse(early.out());
      expect(waiting).toMatchObject({ attempted: 0, waiting: 1, deliveries: [] });

      const status = io();
      expect(await main(['batch', 'status', cancelled, '--db', db, '--json'], status)).toBe(EXIT.ok);
      const next = JSON.parse(status.out()).deliveries[0].next_attempt_at;
      expect(next).toMatch(ISO_8601);
      // Delivered by a run whose clock is past the schedule (moved on, not waited for).
      const second = io();
      const ahead = Math.max(0, Date.parse(next) + 1 - Date.now());
      second.now = () => Date.now() + ahead;
      expect(await main([...argv, '--json'], second)).toBe(EXIT.ok);
      const report = JSON.parse(second.out());
      expect(report).toMatchObject({
        attempted: 1,
        waiting: 0,
        deliveries: [{ job_id: cancelled, type: 'batch.cancelled', state: 'delivered' }],
      });
      expectApiJson(report);
      const event = verifyPayload(
        receiver.deliveries[1]?.body ?? '',
        String(receiver.deliveries[1]?.headers['x-service-signature']),
        'whsec_d',
      );
      expect(event).toMatchObject({ type: 'batch.cancelled', data: { object: { id: cancelled } } });
      expect(receiver.deliveries).toHaveLength(2);
      expect(id).not.toBe(cancelled); // the job without a webhook queued nothing
    } finally {
      await receiver.close();
    }
  }, 60_000);

  it('checks --out before the job, and says how to get the results when writing fails after it', async () => {
    const db = join(dir, 'out.db');
    const input = join(dir, 'ips.txt');
    const missing = io();
    expect(
      await main(
        ['batch', 'run', '--type', 'geo_ip', '--file', input, '--db', db, '--out', '/missing/dir/r.csv'],
        missing,
      ),
    ).toBe(EXIT.failure);
    expect(missing.err()).toBe(
      'svc: cannot write /missing/dir/r.csv: the folder /missing/dir does not exist\n',
    );
    await expect(stat(db)).rejects.toThrow(/ENOENT/); // no job was created

    // A file that opens but cannot take the data (a full disk): the job is done by then.
    const full = join(dir, 'full.csv');
    await symlink('/dev/full', full);
    const failed = io();
    expect(
      await main(['batch', 'run', '--type', 'geo_ip', '--file', input, '--db', db, '--out', full], failed),
    ).toBe(EXIT.failure);
    const id = /batch: (batch_\w+)/.exec(failed.err())?.[1];
    expect(failed.err()).toContain(
      `svc: cannot write ${full}: no space left on the device (ENOSPC); the results are kept in the job database: svc batch results ${id} --db ${db} --format csv > results.csv\n`,
    );
    const results = io();
    expect(await main(['batch', 'results', String(id), '--db', db], results)).toBe(EXIT.ok);
    expect(results.out().trim().split('\n')).toHaveLength(2);
  }, 120_000);

  it('creates result files 0600 whatever the umask', async () => {
    const out = join(dir, 'private.ndjson');
    const umask = process.umask(0);
    try {
      const run = io();
      const argv = ['batch', 'run', '--type', 'geo_ip', '--file', join(dir, 'ips.txt'), '--out', out];
      expect(await main([...argv, '--db', join(dir, 'private.db')], run)).toBe(EXIT.ok);
    } finally {
      process.umask(umask);
    }
    expect((await stat(out)).mode & 0o777).toBe(0o600);
  }, 120_000);

  it('names the job database and the real cause: no such file, a directory, not a database, permission', async () => {
    const folder = join(dir, 'a-folder.db');
    await mkdir(folder);
    const text = join(dir, 'notes.db');
    await writeFile(text, 'these are notes, not jobs\n');
    const locked = join(dir, 'locked.db');
    await queuedJob(locked);
    await chmod(locked, 0o600);
    await chmod(dir, 0o755);
    const cases: Array<[string[], string]> = [
      [
        ['batch', 'list', '--db', join(dir, 'typo.db')],
        `cannot open the job database ${join(dir, 'typo.db')}: no such file`,
      ],
      [['batch', 'list', '--db', folder], `cannot open the job database ${folder}: is a directory (EISDIR)`],
      [['batch', 'status', 'batch_x', '--db', text], `cannot open the job database ${text}: not a database`],
      [
        ['batch', 'run', '--type', 'geo_ip', '--file', join(dir, 'ips.txt'), '--db', folder],
        `cannot open the job database ${folder}: is a directory (EISDIR)`,
      ],
      [
        ['batch', 'run', '--type', 'geo_ip', '--file', dir, '--db', text],
        `cannot read ${dir}: is a directory (EISDIR)`,
      ],
    ];
    for (const [argv, message] of cases) {
      const captured = io();
      expect(await main(argv, captured)).toBe(EXIT.failure);
      expect(captured.err()).toContain(`svc: ${message}`);
    }
    const denied = await asAnotherUser(async () => {
      const captured = io();
      return [await main(['batch', 'list', '--db', locked], captured), captured.err()];
    });
    expect(denied).toEqual([
      EXIT.failure,
      `svc: cannot open the job database ${locked}: permission denied (EACCES)\n`,
    ]);
    // The data dir: without --db, the database goes in $SVC_DATA_DIR, here a file.
    const blocked = io();
    blocked.env.SVC_DATA_DIR = join(text, 'svc');
    expect(await main(['batch', 'run', '--type', 'geo_ip', '--file', join(dir, 'ips.txt')], blocked)).toBe(
      EXIT.failure,
    );
    expect(blocked.err()).toBe(
      `svc: cannot create the folder of the job database ${join(text, 'svc', 'batch.db')}: a folder on the path is a file (ENOTDIR)\n`,
    );
    await expect(readFile(text, 'utf8')).resolves.toBe('these are notes, not jobs\n');
    // svc geo keeps its compiled data there too.
    const geo = io();
    geo.env.SVC_DATA_DIR = join(text, 'svc');
    expect(await main(['geo', '8.8.8.8'], geo)).toBe(EXIT.failure);
    // (The message's wording belongs to the data-dir code; the path and the cause must be there.)
    expect(geo.err()).toMatch(/^svc: cannot .*notes\.db\/svc\b.*\(ENOTDIR\)\n$/);
  });
});
